import type { Clock } from "@phonework/runtime";
import { activeNodeSetText, nodeOfflineText } from "../chat/user-messages.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import type { RoutingStep } from "./routing-step.ts";

// "@work-server run the tests", "on work-server: run the tests", "@Home PC, status?" — the user
// named the machine, so no model is asked. The node id or its display name both count.

export interface ExplicitTarget {
  node: NodeInfo;
  /** The message without the target prefix. */
  rest: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function findExplicitTarget(text: string, nodes: readonly NodeInfo[]): ExplicitTarget | undefined {
  const trimmed = text.trim();
  let best: (ExplicitTarget & { length: number }) | undefined;
  for (const node of nodes) {
    for (const name of new Set([node.nodeId, node.displayName])) {
      const n = escapeRegExp(name);
      // "@name" then a separator or the end; "on name:" needs the colon so plain prose is not caught.
      const match = new RegExp(`^(?:@${n}(?=$|[\\s:,，：])|on\\s+${n}\\s*[:：])[\\s:,，：]*`, "i").exec(
        trimmed,
      );
      // The longest name wins: "@work" must not steal "@work-server".
      if (match && (!best || name.length > best.length))
        best = { node, rest: trimmed.slice(match[0].length).trim(), length: name.length };
    }
  }
  return best ? { node: best.node, rest: best.rest } : undefined;
}

/** An explicitly named node gets the message (and becomes active); offline, the user is told so. */
export function explicitTargetStep(clock: Clock): RoutingStep {
  return ({ text, nodes }) => {
    const target = findExplicitTarget(text, nodes);
    if (!target) return undefined;
    const { node, rest } = target;
    if (node.status !== "online") return { kind: "reply", text: nodeOfflineText(node, clock.now()) };
    if (!rest) return { kind: "reply", text: activeNodeSetText(node), activeNodeId: node.nodeId };
    return { kind: "forward", nodeId: node.nodeId, reason: "explicit", text: rest };
  };
}
