import type { Button, WireError } from "@phonework/protocol";
import { formatAgo } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";
import { bindToNode } from "./node-buttons.ts";
import { fromNode } from "./user-messages.ts";

// What the user reads when one command (/tasks, /reminders, /plans, /sessions) was asked of every
// node of theirs at once: each node's own answer under its tag, answers several nodes gave alike
// said once with all their names ("[home-pc, work-srv] No background tasks yet."), then the nodes
// that were not asked because they are offline.

/** One node's part: its answer, or why there is none. */
export type NodePart =
  | { nodeId: string; ok: true; text: string; buttons?: readonly (readonly Button[])[] }
  | { nodeId: string; ok: false; error: WireError };

/** Buttons on a message are capped by the wire (and by what fits under one message). */
const MAX_BUTTON_ROWS = 20;
const MAX_LABEL = 64;

/** A node's failure, said after its tag (so without its name again). */
function failureText(error: WireError): string {
  switch (error.code) {
    case "TIMEOUT":
      return "⏱️ did not answer in time; it may still be working.";
    case "NODE_OFFLINE":
      return "⚠️ went offline before answering.";
    default:
      return `❌ could not answer (${error.code}): ${error.message}`;
  }
}

export function acrossNodesText(
  parts: readonly NodePart[],
  notAsked: readonly NodeInfo[],
  now: number,
): string {
  const groups = new Map<string, string[]>();
  for (const part of parts) {
    const text = part.ok ? part.text.trim() || "(empty reply)" : failureText(part.error);
    groups.set(text, [...(groups.get(text) ?? []), part.nodeId]);
  }
  const answers = [...groups].map(([text, nodeIds]) => fromNode(nodeIds, text));
  const offline =
    notAsked.length > 0
      ? [
          `Offline, not asked: ${notAsked.map((node) => `${node.nodeId} (last seen ${formatAgo(now - node.lastSeen)})`).join(", ")}.`,
        ]
      : [];
  return [...answers, ...offline].join("\n\n");
}

/** Every node's buttons, each bound to its node and labelled with it (two nodes both offer "Cancel #1"). */
export function acrossNodesButtons(parts: readonly NodePart[]): Button[][] {
  const rows = parts.flatMap((part) =>
    part.ok && part.buttons
      ? bindToNode(part.nodeId, part.buttons).map((row) =>
          row.map((button) => ({ ...button, label: `${button.label} · ${part.nodeId}`.slice(0, MAX_LABEL) })),
        )
      : [],
  );
  return rows.slice(0, MAX_BUTTON_ROWS);
}
