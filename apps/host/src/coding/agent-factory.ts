import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { ApprovalBroker } from "./approval-broker.ts";
import { createClaudeAgent } from "./claude-agent.ts";
import { createCodexAgent } from "./codex-agent.ts";
import type { CodingAgent } from "./coding-agent.ts";
import type { AgentName } from "./session-store.ts";

/** Builds the real CLI-backed agents from the host's config. */
export function createAgentFactory(config: HostConfig, deps: { env: NodeJS.ProcessEnv; logger: Logger }) {
  return (name: AgentName, approvals: ApprovalBroker): CodingAgent =>
    name === "claude"
      ? createClaudeAgent({
          bin: config.CLAUDE_BIN,
          permissionMode: config.CLAUDE_PERMISSION_MODE,
          allowedTools: config.CLAUDE_ALLOWED_TOOLS,
          stopGraceMs: config.STOP_GRACE_S * 1000,
          env: deps.env,
          logger: deps.logger.child({ agent: "claude" }),
        })
      : createCodexAgent({
          bin: config.CODEX_BIN,
          approvalPolicy: config.CODEX_APPROVAL_POLICY,
          sandbox: config.CODEX_SANDBOX,
          stopGraceMs: config.STOP_GRACE_S * 1000,
          connectTimeoutMs: config.CODEX_CONNECT_TIMEOUT_S * 1000,
          approvals,
          env: deps.env,
          logger: deps.logger.child({ agent: "codex" }),
        });
}
