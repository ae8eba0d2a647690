import { TERMINAL_CAPABILITY } from "@phonework/protocol";
import type { NodeInfo } from "../registry/node-info.ts";
import type { AdminNode, ConsoleNode } from "./console-frames.ts";

// A node as the console shows it to one user: the same nodes `/nodes` lists for them, with only
// their own coding sessions; who paired it and whether it was revoked only for admins. Admins also
// get every node the router knows (`adminNode`), for pairing, sharing, revoking and forgetting.

export function consoleNode(node: NodeInfo, userId: string, admin: boolean): ConsoleNode {
  return {
    id: node.nodeId,
    name: node.displayName,
    status: node.status,
    last_seen: node.lastSeen,
    capabilities: node.capabilities,
    sessions: node.sessions.filter((session) => session.user_id === undefined || session.user_id === userId),
    terminal: node.status === "online" && node.capabilities.includes(TERMINAL_CAPABILITY),
    ...(admin ? { revoked: node.revoked, ...(node.owner ? { owner: node.owner } : {}) } : {}),
  };
}

export function adminNode(node: NodeInfo): AdminNode {
  return {
    id: node.nodeId,
    name: node.displayName,
    status: node.status,
    last_seen: node.lastSeen,
    paired: node.paired,
    revoked: node.revoked,
    serves: node.servesUsers === "all" ? "all" : [...node.servesUsers],
    ...(node.owner ? { owner: node.owner } : {}),
  };
}
