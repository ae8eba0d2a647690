import { formatAgo, formatDuration } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";

// /nodes: the user's nodes under honest headings (online, offline, revoked), with the user's
// coding sessions under each node:
//   Online:
//   → home-pc  [ACTIVE]  sessions=2  online 3h
//       #1 claude todo_app (busy, active)
//       #2 codex blog
//   Offline:
//     work-server         sessions=0  last seen 47m ago
//   Revoked (keys refused):
//     old-laptop          sessions=0  revoked

const SECTIONS = [
  { heading: "Online:", holds: (node: NodeInfo) => !node.revoked && node.status === "online" },
  { heading: "Offline:", holds: (node: NodeInfo) => !node.revoked && node.status !== "online" },
  { heading: "Revoked (keys refused):", holds: (node: NodeInfo) => node.revoked },
];

export function formatNodeList(
  nodes: NodeInfo[],
  activeNodeId: string | undefined,
  now: number,
  userId: string,
  /** Admins see who owns each node. */
  showOwners = false,
): string {
  if (nodes.length === 0) {
    return "No nodes are serving you yet. An admin pairs one with /pair <name>; then on that PC: phonework host --join <code>.";
  }
  const width = Math.max(...nodes.map((n) => n.nodeId.length));
  const rows = (node: NodeInfo) => {
    const active = node.nodeId === activeNodeId;
    const marker = active ? "→" : " ";
    const tag = (active ? "[ACTIVE]" : "").padEnd(8);
    const status = node.revoked
      ? "revoked"
      : node.status === "online"
        ? `online ${formatDuration(now - node.connectedAt)}`
        : `last seen ${formatAgo(now - node.lastSeen)}`;
    const name = node.displayName !== node.nodeId ? `  (${node.displayName})` : "";
    const owner = showOwners && node.owner ? `  owner: ${node.owner}` : "";
    // A node may serve several people: only this user's sessions are theirs to see.
    const sessions = node.sessions.filter((s) => s.user_id === undefined || s.user_id === userId);
    const sessionRows = sessions.map((s) => {
      const flags = [s.busy ? "busy" : "", s.active ? "active" : ""].filter(Boolean).join(", ");
      return `      #${s.id} ${s.agent} ${s.project}${flags ? ` (${flags})` : ""}`;
    });
    return [
      `${marker} ${node.nodeId.padEnd(width)}  ${tag}  sessions=${sessions.length}  ${status}${name}${owner}`,
      ...sessionRows,
    ];
  };
  const sections = SECTIONS.flatMap(({ heading, holds }) => {
    const listed = nodes.filter(holds);
    return listed.length > 0 ? [heading, ...listed.flatMap(rows)] : [];
  });
  return [...sections, "", 'Use "/node <name>" to switch active node.'].join("\n");
}
