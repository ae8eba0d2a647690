import type { NodeInfo } from "../registry/node-info.ts";
import { statusView } from "./status-view.ts";

// /status for admins: every node with its owner, the users it serves and its sessions.

export function formatStatus(nodes: readonly NodeInfo[], now: number): string {
  const view = statusView(nodes, now);
  if (view.nodes.length === 0) return "No nodes yet. Pair one with /pair <name>.";
  const rows = view.nodes.flatMap((node) => {
    const state = node.revoked
      ? "revoked"
      : node.status === "online"
        ? `online ${node.online_for}`
        : `offline (last seen ${node.last_seen_ago})`;
    const trust = node.paired ? `owner ${node.owner}` : "shared secret";
    const users = node.users === "all" ? "all users" : node.users.join(", ") || "nobody";
    const sessions = node.sessions.map(
      (s) => `    #${s.id} ${s.agent} ${s.project}${s.busy ? " (busy)" : ""}`,
    );
    // A display name the host chose that is its id says nothing twice.
    const name = node.display_name !== node.node_id ? ` (${node.display_name})` : "";
    return [`• ${node.node_id}${name} — ${state}; ${trust}; serves ${users}`, ...sessions];
  });
  const more = view.more_nodes > 0 ? [`…and ${view.more_nodes} more`] : [];
  return ["Router status:", ...rows, ...more].join("\n");
}
