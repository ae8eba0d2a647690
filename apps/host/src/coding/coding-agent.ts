import type { ReceivedImage } from "../contracts/received-image.ts";
import type { DetailSink } from "../contracts/turn-detail.ts";
import type { TokenUsage } from "../contracts/usage-meter.ts";
import type { SessionRecord } from "./session-store.ts";

// What every coding agent (Claude Code, Codex) offers the session manager: run one turn in a
// session's project, report progress lines, honour cancellation, and say which of its own
// session ids to resume next time.

export interface TurnRequest {
  session: SessionRecord;
  prompt: string;
  /** Images the user sent with the prompt (which names their files too). */
  images?: ReceivedImage[];
  signal: AbortSignal;
  /** A short status line: the tool in use, the command being run, the plan step. */
  onProgress(line: string): void;
  /** The turn's details: each tool the agent calls and its result (clipped). */
  onDetail?: DetailSink;
  /** Per-turn overrides (Codex). */
  model?: string;
  effort?: string;
}

/** How a turn ended, as data: callers (background tasks, checks) never read it from the text. */
export interface TurnOutcome {
  /** The agent finished the turn and answered; false when it failed or was stopped. */
  ok: boolean;
  /** Ended by /stop (or its session closing) before it finished. */
  stopped: boolean;
  /** The agent's final answer verbatim (code blocks intact), or what went wrong. */
  text: string;
}

export interface TurnResult extends TurnOutcome {
  /** The agent's session/thread id to resume with next time. */
  agentSessionId: string | undefined;
  /** Something the user should know first (e.g. the old conversation was gone, a fresh one started). */
  notice?: string;
  /** What the turn spent, as the CLI reported it. */
  usage?: TokenUsage;
}

/** One of the agent's own saved conversations on this machine. */
export interface AgentThread {
  /** The agent's id for it: what a session resumes (its `agent_session_id`). */
  id: string;
  /** Its name, else its first message; may be empty. */
  title: string;
  /** Epoch milliseconds of its last update. */
  updatedAt: number;
  /** The directory it ran in, when known. */
  cwd?: string;
}

export interface AgentThreads {
  /** The newest `limit` conversations, newest first. */
  list(limit: number): Promise<AgentThread[]>;
  /** One conversation, or undefined when the agent has none with that id. */
  read(id: string): Promise<AgentThread | undefined>;
}

export interface CodingAgent {
  readonly name: "claude" | "codex";
  runTurn(request: TurnRequest): Promise<TurnResult>;
  /** The agent's saved conversations, where it can list them (Codex). */
  readonly threads?: AgentThreads;
  /** Stops background processes (e.g. the Codex app-server). */
  close(): Promise<void>;
}
