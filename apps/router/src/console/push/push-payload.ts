// What a push carries: a title and a short summary, never command output (a phone's lock screen
// shows it, and the push service relays it). Longer text is cut to SUMMARY_CHARS.

export const SUMMARY_CHARS = 100;

export interface PushPayload {
  title: string;
  body: string;
  /** Pushes with one tag replace each other on the phone (one per task, say). */
  tag?: string;
  /** Where a tap opens, under /console/. */
  url?: string;
  /** The node it is about: an action's command goes to it. */
  node?: string;
  /** The notification's buttons: `action` is the command a tap sends (/approve <id>, /deny <id>). */
  actions?: Array<{ action: string; title: string }>;
}

export function shortSummary(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= SUMMARY_CHARS ? line : `${line.slice(0, SUMMARY_CHARS - 1)}…`;
}

export function pushPayload(payload: PushPayload): string {
  return JSON.stringify({
    ...payload,
    title: shortSummary(payload.title),
    body: shortSummary(payload.body),
  });
}
