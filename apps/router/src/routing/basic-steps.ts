import type { Clock } from "@phonework/runtime";
import { nodeOfflineText, noNodesText, pickNodeText } from "../chat/user-messages.ts";
import type { RoutingContext, RoutingDecision, RoutingStep } from "./routing-step.ts";

/** The user chose a node with `/node`: go there, or say clearly that it is offline. */
export function activeNodeStep(clock: Clock): RoutingStep {
  return ({ nodes, activeNodeId }) => {
    if (!activeNodeId) return undefined;
    const node = nodes.find((n) => n.nodeId === activeNodeId);
    if (node?.status === "online") return { kind: "forward", nodeId: node.nodeId, reason: "active" };
    return { kind: "reply", text: nodeOfflineText(node ?? activeNodeId, clock.now()) };
  };
}

/** Exactly one node online for this user: no choice to make. */
export const onlyOnlineNodeStep: RoutingStep = ({ nodes }) => {
  const online = nodes.filter((n) => n.status === "online");
  return online.length === 1 && online[0]
    ? { kind: "forward", nodeId: online[0].nodeId, reason: "only" }
    : undefined;
};

/** Nothing decided: ask the user to pick with /node. */
export function askUserToChoose({ nodes }: RoutingContext): RoutingDecision {
  const online = nodes.filter((n) => n.status === "online");
  return { kind: "reply", text: online.length === 0 ? noNodesText(nodes) : pickNodeText(online) };
}
