import { CURRENT_PROTOCOL_VERSION, type RegisterFrame, type SessionSummary } from "@phonework/protocol";
import type { HostConfig } from "../config/host-config.ts";

// `register`, built fresh for each connection: who the node is, whom it serves, and what it can do
// now (a CLI installed while the host runs, or node-pty loading late, shows up on reconnect).

export interface RegistrationFacts {
  config: Pick<HostConfig, "NODE_ID" | "SERVES_USERS" | "WORKING_DIR">;
  displayName: string;
  capabilities: () => string[];
  sessions: () => SessionSummary[];
  commands: () => Array<{ usage: string; description: string }>;
  tools: () => string[];
}

export function registrationOf(facts: RegistrationFacts): () => RegisterFrame {
  const { config } = facts;
  return () => ({
    type: "register",
    node_id: config.NODE_ID,
    display_name: facts.displayName,
    serves_users: config.SERVES_USERS,
    working_dir: config.WORKING_DIR,
    capabilities: facts.capabilities(),
    protocol_versions: [CURRENT_PROTOCOL_VERSION],
    sessions: facts.sessions(),
    commands: facts.commands(),
    tools: facts.tools(),
  });
}
