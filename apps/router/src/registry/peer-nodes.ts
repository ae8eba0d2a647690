import { type PeerNode, WORKERS_CAPABILITY } from "@phonework/protocol";
import type { NodeInfo } from "./node-info.ts";

/** The user's nodes other than `nodeId`, as a forward tells the node (for plans across nodes). */
export function peersOf(nodes: readonly NodeInfo[], nodeId: string): PeerNode[] {
  return nodes
    .filter((node) => node.nodeId !== nodeId && !node.revoked)
    .slice(0, 100)
    .map((node) => ({
      node_id: node.nodeId,
      display_name: node.displayName,
      online: node.status === "online",
      workers: node.capabilities.includes(WORKERS_CAPABILITY),
    }));
}
