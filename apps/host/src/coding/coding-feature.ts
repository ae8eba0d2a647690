import { join } from "node:path";
import type { HostFrame } from "@phonework/protocol";
import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import { ownerOf } from "../contracts/chat-owner.ts";
import type { CodingTurns } from "../contracts/coding-turns.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { UsageMeter } from "../contracts/usage-meter.ts";
import type { Outbox } from "../delivery/outbox.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { AgentCache } from "./agent-cache.ts";
import { ApprovalBroker } from "./approval-broker.ts";
import type { CodingAgent } from "./coding-agent.ts";
import { createCodingSessionTool } from "./coding-session-tool.ts";
import { codingTurns } from "./coding-turns.ts";
import { sessionCommands } from "./session-commands.ts";
import { SessionManager, type TurnObserver } from "./session-manager.ts";
import { type AgentName, SessionStore } from "./session-store.ts";
import { type ThreadCommandDeps, threadCommands, useThread } from "./thread-commands.ts";

// Coding sessions: Claude Code and Codex driven from the chat. Owns the CLIs' lookup and agent
// cache, approvals, the session manager, its tool and commands, and the live sessions_update.

export interface CodingFeatureDeps {
  config: HostConfig;
  env: NodeJS.ProcessEnv;
  db: SqliteDatabase;
  stateDir: string;
  clock: Clock;
  logger: Logger;
  outbox: Outbox;
  tasks: TaskRunner;
  /** Sends a frame on the link now: the sessions list is live state, re-sent in `register` anyway. */
  send: (frame: HostFrame) => boolean;
  overview: { observer: TurnObserver; changed(userId: string): void };
  /** Agents handed in (tests, embedding); the real `claude` and `codex` CLIs by default. */
  agents?: ((name: AgentName, approvals: ApprovalBroker) => CodingAgent) | undefined;
  /** Counts what each coding turn spent (usage/); a session is warned at a limit, never cut. */
  usage?: { meter: UsageMeter };
}

export interface CodingFeature extends HostFeature {
  readonly sessions: SessionManager;
  readonly approvals: ApprovalBroker;
  /** Coding sessions as background tasks and scheduled checks use them. */
  readonly turns: CodingTurns;
}

export function createCodingFeature(deps: CodingFeatureDeps): CodingFeature {
  const { config, clock, outbox } = deps;
  const approvals = new ApprovalBroker({
    timeoutMs: config.APPROVAL_TIMEOUT_S * 1000,
    notify: (owner, text, buttons) =>
      outbox.notify(owner, text, buttons ? { buttons, alert: "approval" } : {}),
    now: () => clock.now(),
    onChange: deps.overview.changed,
  });
  const agents = new AgentCache({ ...deps, approvals });
  const sessions: SessionManager = new SessionManager({
    store: SessionStore.open(deps.db, join(deps.stateDir, "sessions.json"), deps.logger),
    agents: (name) => agents.get(name),
    workingDir: config.WORKING_DIR,
    maxPending: config.MAX_PENDING,
    longTurnMs: config.LONG_TURN_S * 1000,
    tasks: deps.tasks,
    clock,
    logger: deps.logger,
    onChange: () => deps.send({ type: "sessions_update", sessions: sessions.summaries() }),
    missingAgent: (name) => agents.missing(name),
    observer: deps.overview.observer,
    onUsage: (session, usage) =>
      deps.usage?.meter.record({ ...ownerOf(session), kind: "session", project: session.project }, usage),
  });
  const threads: ThreadCommandDeps = {
    sessions,
    codexThreads: () => {
      const missing = agents.missing("codex");
      const threads = missing ? undefined : agents.get("codex").threads;
      return threads
        ? { threads }
        : { unavailable: missing ?? "this node's Codex agent cannot list its threads" };
    },
    workingDir: config.WORKING_DIR,
    clock,
  };
  return {
    name: "coding",
    sessions,
    approvals,
    turns: codingTurns(sessions),
    tools: [createCodingSessionTool(sessions, config.DEFAULT_AGENT)],
    commands: [
      ...sessionCommands({
        sessions,
        approvals,
        defaultAgent: config.DEFAULT_AGENT,
        clock,
        useThread: (owner, id) => useThread(threads, owner, id),
      }),
      ...threadCommands(threads),
    ],
    capabilities: () => [
      ...(agents.missing("claude") ? [] : ["claude_code"]),
      ...(agents.missing("codex") ? [] : ["codex"]),
    ],
    async stop() {
      await sessions.stopAll();
      await agents.close();
    },
  };
}
