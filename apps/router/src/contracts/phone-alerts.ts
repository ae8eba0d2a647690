// A nudge to the user's phone (Web Push) for news they would want while no console page of theirs
// is watching: a task or plan finished, an approval waiting, a reminder, a node gone offline.
// delivery/ says what happened; the console decides whether and where to push it.

/**
 * The only commands a notification's buttons may carry, and the push route accepts back:
 * answering an approval (the host checks it is this user's).
 */
export const APPROVAL_COMMAND = /^\/(approve|deny) [A-Za-z0-9_-]{1,32}$/;

export type PhoneAlertKind = "task" | "plan" | "approval" | "reminder" | "offline";

export interface PhoneAlert {
  userId: string;
  /** The node it is about: only subscriptions covering that node get it. */
  nodeId: string;
  kind: PhoneAlertKind;
  title: string;
  /** A short summary, never a command's output. */
  body: string;
  /** Alerts with one tag replace each other on the phone (one per task, say). */
  tag?: string;
  /** Buttons on the notification, each sending `command` to `nodeId` as the user (Approve/Deny). */
  actions?: readonly { title: string; command: string }[];
}

export interface PhoneAlerts {
  /** Fire and forget: a push is a nudge, the chat has the news either way. */
  alert(alert: PhoneAlert): void;
}
