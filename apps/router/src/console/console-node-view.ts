import { TERMINAL_CAPABILITY } from "@phonework/protocol";
import type { NodeInfo } from "../registry/node-info.ts";
import type { ConsoleNode } from "./console-frames.ts";

// A node as the console shows it to one user: the same nodes `/nodes` lists for them, with only
// their own coding sessions; who paired it and whether it was revoked only for admins.

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
