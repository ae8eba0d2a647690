import type { Clock } from "@phonework/runtime";
import { nodeOfflineText, noNodesText, onlineNowText, pickNodeText } from "../chat/user-messages.ts";
import type { RoutingContext, RoutingDecision, RoutingStep } from "./routing-step.ts";
import { onlineNodes } from "./routing-step.ts";

/**
 * Exactly one node online for this user: no choice to make. Except when the user's active node is
 * another one that is offline: "deploy" meant for work-server must not quietly run on home-pc, so
 * the fallback tells them it is offline and how to reach the one that is online.
 */
export const onlyOnlineNodeStep: RoutingStep = ({ nodes, activeNodeId }) => {
  const online = onlineNodes(nodes);
  const only = online.length === 1 ? online[0] : undefined;
  if (!only) return undefined;
  const activeIsOffline = activeNodeId !== undefined && activeNodeId !== only.nodeId;
  return activeIsOffline ? undefined : { kind: "forward", nodeId: only.nodeId, reason: "only-online" };
};

/**
 * The message continues a coding session: the user's active session (passthrough) lives on the
 * node that should get it. The active node wins when it owns one; otherwise a single owner wins
 * only if the user has no usable active node (an explicit /node choice is not overridden here —
 * the routing LLM sees the sessions and decides).
 */
export const sessionOwnerStep: RoutingStep = ({ userId, nodes, activeNodeId }) => {
  const owners = onlineNodes(nodes).filter((node) =>
    node.sessions.some((s) => s.active === true && s.user_id === userId),
  );
  const active = owners.find((node) => node.nodeId === activeNodeId);
  if (active) return { kind: "forward", nodeId: active.nodeId, reason: "session" };
  const activeIsUsable = onlineNodes(nodes).some((node) => node.nodeId === activeNodeId);
  if (!activeIsUsable && owners.length === 1 && owners[0])
    return { kind: "forward", nodeId: owners[0].nodeId, reason: "session" };
  return undefined;
};

/** Last resort: the active node; if it is offline, say so; with none, ask the user to pick. */
export function fallbackToActiveNode(clock: Clock): (ctx: RoutingContext) => RoutingDecision {
  return ({ userId, nodes, activeNodeId }) => {
    const online = onlineNodes(nodes);
    const active = nodes.find((n) => n.nodeId === activeNodeId);
    if (active?.status === "online") return { kind: "forward", nodeId: active.nodeId, reason: "active" };
    if (activeNodeId) {
      const offline = nodeOfflineText(active ?? activeNodeId, clock.now());
      return { kind: "reply", text: online.length > 0 ? `${offline}\n${onlineNowText(online)}` : offline };
    }
    return { kind: "reply", text: online.length === 0 ? noNodesText(nodes, userId) : pickNodeText(online) };
  };
}
