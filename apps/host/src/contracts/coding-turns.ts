import type { ChatOwner } from "./chat-owner.ts";

// What background tasks and scheduled checks ask of coding sessions (run a prompt in one), so
// they need not depend on the coding feature: it hands its session manager in as this port.

/** A coding session as the port names it. */
export interface CodingSessionRef {
  id: string;
  agent: string;
  project: string;
  cwd: string;
}

export interface CodingTurnContext extends ChatOwner {
  signal: AbortSignal;
  progress(line: string): void;
}

export interface CodingTurns {
  /** The user's session `id`, or without one their active or most recent session. */
  pick(userId: string, id?: string): CodingSessionRef | undefined;
  /** Runs `prompt` as a turn of `session` to its end. */
  run(
    session: CodingSessionRef,
    prompt: string,
    ctx: CodingTurnContext,
  ): Promise<{ ok: boolean; stopped: boolean; text: string }>;
}
