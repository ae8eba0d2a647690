import type { SessionSummary } from "@phonework/protocol";
import { formatAgo, formatDuration } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";

// The admin's view of every node (GET /health with ADMIN_TOKEN, and /status in chat). Bounded:
// however many nodes registered, the answer stays small enough to build in a moment.

export const STATUS_MAX_NODES = 200;
const MAX_SESSIONS_SHOWN = 20;
const MAX_USERS_SHOWN = 50;

export interface NodeStatus {
  node_id: string;
  display_name: string;
  status: "online" | "offline";
  paired: boolean;
  revoked: boolean;
  owner: string | null;
  users: string[] | "all";
  sessions: SessionSummary[];
  capabilities: string[];
  last_seen: string;
  online_for?: string;
  last_seen_ago?: string;
}

export interface StatusView {
  nodes: NodeStatus[];
  /** Nodes not shown (past STATUS_MAX_NODES). */
  more_nodes: number;
}

export function statusView(nodes: readonly NodeInfo[], now: number): StatusView {
  const shown = [...nodes]
    .sort((a, b) =>
      a.status === b.status ? a.nodeId.localeCompare(b.nodeId) : a.status === "online" ? -1 : 1,
    )
    .slice(0, STATUS_MAX_NODES);
  return {
    more_nodes: Math.max(0, nodes.length - shown.length),
    nodes: shown.map((node) => ({
      node_id: node.nodeId,
      display_name: node.displayName,
      status: node.status,
      paired: node.paired,
      revoked: node.revoked,
      owner: node.owner ?? null,
      users: node.servesUsers === "all" ? "all" : node.servesUsers.slice(0, MAX_USERS_SHOWN),
      sessions: node.sessions.slice(0, MAX_SESSIONS_SHOWN),
      capabilities: node.capabilities.slice(0, 30),
      last_seen: new Date(node.lastSeen).toISOString(),
      ...(node.status === "online"
        ? { online_for: formatDuration(now - node.connectedAt) }
        : { last_seen_ago: formatAgo(now - node.lastSeen) }),
    })),
  };
}
