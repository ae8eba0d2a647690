import type { ChatOwner } from "./chat-owner.ts";

// What spends model tokens and how much, as every feature reports it (usage/ stores it, prices it
// and holds the limits). A model call is tagged with whose it is and what it was for; a coding
// session reports what its CLI counted.

export type UsageKind = "turn" | "worker" | "report" | "session";

export interface UsageTag extends ChatOwner {
  kind: UsageKind;
  /** The plan a worker or report spends for (PLAN_TOKEN_LIMIT). */
  planId?: string;
  /** The coding session's project. */
  project?: string;
  /** A subtask run here for another node's plan: no chat of the user's here to tell anything. */
  isolated?: boolean;
}

/** One call's tokens as the API reported them; `input` includes `cachedInput`. */
export interface TokenUsage {
  model: string;
  input: number;
  cachedInput: number;
  output: number;
  /** What the API said it cost (Claude Code's total_cost_usd); else priced from MODEL_PRICES. */
  costUsd?: number;
}

export interface UsageMeter {
  /**
   * Stores one call's usage as counted (numbers that are not counts, negative or absurd, as 0) and
   * returns it, with its cost in USD unless the model has no price.
   */
  record(tag: UsageTag, usage: TokenUsage): TokenUsage;
  /** Why no model call may be made for `tag` now (a limit reached), with when it resets; else undefined. */
  refusal(tag: UsageTag): string | undefined;
}

/** Thrown instead of calling the model once a limit is reached; the agent loop ends the turn with it. */
export class UsageLimitReached extends Error {
  override readonly name = "UsageLimitReached";
}
