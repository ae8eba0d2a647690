import { formatDuration } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";

// The seed's /nodes layout:
//   Connected Nodes:
//   → home-pc  [ACTIVE]  sessions=2  online 3h
//     work-server         sessions=0  online 47m
export function formatNodeList(nodes: NodeInfo[], activeNodeId: string | undefined, now: number): string {
  if (nodes.length === 0) {
    return "No nodes are serving you yet. Start a host (pnpm host) with ROUTER_URL pointing at this router.";
  }
  const width = Math.max(...nodes.map((n) => n.nodeId.length));
  const rows = nodes.map((node) => {
    const active = node.nodeId === activeNodeId;
    const marker = active ? "→" : " ";
    const tag = (active ? "[ACTIVE]" : "").padEnd(8);
    const status =
      node.status === "online"
        ? `online ${formatDuration(now - node.connectedAt)}`
        : `offline (last seen ${formatDuration(now - node.lastSeen)} ago)`;
    const name = node.displayName !== node.nodeId ? `  (${node.displayName})` : "";
    return `${marker} ${node.nodeId.padEnd(width)}  ${tag}  sessions=${node.sessions.length}  ${status}${name}`;
  });
  return ["Connected Nodes:", ...rows, "", 'Use "/node <name>" to switch active node.'].join("\n");
}
