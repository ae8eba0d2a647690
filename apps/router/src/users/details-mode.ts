// Where a chat shows a turn's details (tool calls, their results, the turn's usage), chosen with
// /details: under the turn's main message (a thread, or replies to it), as lines in it, or not at all.

export const DETAILS_MODES = ["thread", "inline", "off"] as const;
export type DetailsMode = (typeof DETAILS_MODES)[number];

/** What the chat's platform offers for them (Capabilities.threads). */
export type ThreadSupport = "threads" | "replies" | "none";

/**
 * The mode a chat gets: its own choice, else a thread where the platform has threads or replies.
 * Without either, "thread" is shown inline.
 */
export function effectiveDetailsMode(chosen: DetailsMode | undefined, threads: ThreadSupport): DetailsMode {
  const mode = chosen ?? "thread";
  return mode === "thread" && threads === "none" ? "inline" : mode;
}
