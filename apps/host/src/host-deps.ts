import type { Clock, Logger } from "@phonework/runtime";
import type { ApprovalBroker } from "./coding/approval-broker.ts";
import type { CodingAgent } from "./coding/coding-agent.ts";
import type { AgentName } from "./coding/session-store.ts";
import type { MessageHandler } from "./contracts/message-handler.ts";
import type { NodeIdentity } from "./identity/node-identity.ts";
import type { RouterTls } from "./link/router-link.ts";
import type { ModelClient } from "./model/model-client.ts";
import type { ChatTerminalWaits } from "./terminals/chat-terminals.ts";
import type { LoadPty } from "./terminals/pty-module.ts";

// What a host is given beside its config: the logger, and what tests and embedders replace.

export interface HostDeps {
  logger: Logger;
  /** Replaces the assistant entirely (tests, embedding). */
  handler?: MessageHandler;
  /** The assistant's model; by default built from OPENAI_* when OPENAI_API_KEY is set. */
  model?: ModelClient;
  clock?: Clock;
  /** Coding agents; by default the real `claude` and `codex` CLIs. */
  agents?: (name: AgentName, approvals: ApprovalBroker) => CodingAgent;
  /** Environment for the coding agents' processes (default: this process's). */
  env?: NodeJS.ProcessEnv;
  random?: () => number;
  /** The node's key (see resolveIdentity); without it the host presents ROUTER_SECRET. */
  identity?: NodeIdentity;
  /** How to trust a self-signed router (ROUTER_CA_FILE, ROUTER_CERT_SHA256). */
  tls?: RouterTls;
  /** The router refused this node's key or join code. */
  onRefused?: (reason: string) => void;
  /** Loads node-pty for terminals (tests: one that fails, as on a machine where it did not build). */
  loadPty?: LoadPty;
  /** How long /term and /keys wait for a program's screen (tests: less for programs that print nothing). */
  chatTerminalWaits?: ChatTerminalWaits;
}
