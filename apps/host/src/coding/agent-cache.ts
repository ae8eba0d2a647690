import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import { findExecutable } from "../os/find-executable.ts";
import { createAgentFactory } from "./agent-factory.ts";
import type { ApprovalBroker } from "./approval-broker.ts";
import type { CodingAgent } from "./coding-agent.ts";
import type { AgentName } from "./session-store.ts";

// The coding agents of this host, one of each made on first use, and whether each CLI is
// installed (looked up on every ask: a CLI installed while the host runs shows up on reconnect).

export interface AgentCacheDeps {
  config: HostConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  approvals: ApprovalBroker;
  /** Agents handed in (tests, embedding): there by definition, the CLIs are not looked up. */
  agents?: ((name: AgentName, approvals: ApprovalBroker) => CodingAgent) | undefined;
}

export class AgentCache {
  private readonly made = new Map<AgentName, CodingAgent>();
  private readonly factory;

  constructor(private readonly deps: AgentCacheDeps) {
    this.factory = deps.agents ?? createAgentFactory(deps.config, { env: deps.env, logger: deps.logger });
  }

  /** Why `name` cannot run here (its CLI is not installed), or undefined when it can. */
  missing(name: AgentName): string | undefined {
    if (this.deps.agents) return undefined;
    const { config } = this.deps;
    const [bin, key, pkg] =
      name === "claude"
        ? [config.CLAUDE_BIN, "CLAUDE_BIN", "@anthropic-ai/claude-code"]
        : [config.CODEX_BIN, "CODEX_BIN", "@openai/codex"];
    return findExecutable(bin, this.deps.env.PATH)
      ? undefined
      : `\`${bin}\` not found on this host: install it (npm i -g ${pkg}) or set ${key}`;
  }

  get(name: AgentName): CodingAgent {
    let agent = this.made.get(name);
    if (!agent) {
      agent = this.factory(name, this.deps.approvals);
      this.made.set(name, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((agent) => agent.close()));
  }
}
