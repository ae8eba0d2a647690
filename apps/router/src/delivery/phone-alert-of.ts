import type { HostPushFrame } from "@phonework/protocol";
import { formatDuration } from "@phonework/runtime";
import { APPROVAL_COMMAND, type PhoneAlert } from "../contracts/phone-alerts.ts";
import type { NodeInfo } from "../registry/node-info.ts";

// What a host's push, or a node going offline, says on the user's phone: a title and one short
// line — never the task's output (a lock screen shows it, and the push service relays it). Only
// task completions and notifies a host marked with `alert` are news for the phone; an older host's
// notifies carry no `alert` and reach the chat only.

/** A task's description in its summary, so the node and the time still fit. */
const DESCRIPTION_CHARS = 48;

const firstLine = (text: string) => text.trim().split("\n", 1)[0]?.trim() ?? "";
const cut = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars - 1)}…`);

export function phoneAlertOf(nodeId: string, frame: HostPushFrame): PhoneAlert | undefined {
  const about = { userId: frame.user_id, nodeId };
  if (frame.type === "task_complete") {
    const what = cut(firstLine(frame.description) || `task #${frame.task_id}`, DESCRIPTION_CHARS);
    const verb = frame.ok ? "finished" : "failed";
    return {
      ...about,
      kind: "task",
      title: frame.ok ? "Task finished" : "Task failed",
      body: `${frame.ok ? "✅" : "❌"} ${what} ${verb} on ${nodeId} (${formatDuration(frame.elapsed_ms)})`,
      tag: `task-${nodeId}-${frame.task_id}`,
    };
  }
  if (frame.type !== "notify" || !frame.alert) return undefined;
  const body = firstLine(frame.text);
  switch (frame.alert) {
    case "approval": {
      const actions = (frame.buttons ?? [])
        .flat()
        .filter((button) => APPROVAL_COMMAND.test(button.command))
        .map((button) => ({ title: button.label, command: button.command }));
      return { ...about, kind: "approval", title: `Approval waiting on ${nodeId}`, body, actions };
    }
    case "reminder":
      return { ...about, kind: "reminder", title: `Reminder from ${nodeId}`, body };
    case "plan":
      return { ...about, kind: "plan", title: `Plan finished on ${nodeId}`, body };
    case "task":
      return { ...about, kind: "task", title: `Task finished on ${nodeId}`, body };
  }
}

/** A node the user uses dropped. */
export function offlineAlert(node: NodeInfo, userId: string): PhoneAlert {
  return {
    userId,
    nodeId: node.nodeId,
    kind: "offline",
    title: `${node.nodeId} went offline`,
    body: `⚠️ Node "${node.nodeId}" disconnected.`,
    tag: `offline-${node.nodeId}`,
  };
}
