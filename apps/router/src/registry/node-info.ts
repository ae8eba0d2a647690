import type { CommandInfo, SessionSummary } from "@phonework/protocol";

/** What the router knows about a node, online or not. Offline nodes stay listed with their last-seen time. */
export interface NodeInfo {
  nodeId: string;
  displayName: string;
  /** Users this node serves; empty means every user the router lets in. */
  servesUsers: string[];
  capabilities: string[];
  workingDir: string;
  sessions: SessionSummary[];
  /** Chat commands the node answers, for /help. */
  commands: CommandInfo[];
  /** Tools the node's assistant can use, for /help. */
  tools: string[];
  protocolVersion: number;
  status: "online" | "offline";
  connectedAt: number;
  lastSeen: number;
}

export function servesUser(node: NodeInfo, userId: string): boolean {
  return node.servesUsers.length === 0 || node.servesUsers.includes(userId);
}

/** `/node work-server` and `/node "Work Server"` both find the node. */
export function matchesName(node: NodeInfo, name: string): boolean {
  const wanted = name.trim().toLowerCase();
  return node.nodeId.toLowerCase() === wanted || node.displayName.toLowerCase() === wanted;
}
