import type { CommandInfo, SessionSummary } from "@phonework/protocol";

/** What the router knows about a node, online or not. Offline nodes stay listed with their last-seen time. */
export interface NodeInfo {
  nodeId: string;
  displayName: string;
  /**
   * Users this node serves. A paired node: its owner and the users it is shared with, narrowed by
   * the host's own SERVES_USERS. "all" only for a node admitted by the shared secret (loopback).
   */
  servesUsers: readonly string[] | "all";
  /** The user who paired it; undefined for a node admitted by the shared secret. */
  owner: string | undefined;
  /** Paired with a key (listed while offline, until forgotten). */
  paired: boolean;
  revoked: boolean;
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
  return node.servesUsers === "all" || node.servesUsers.includes(userId);
}

/** `/node work-server` and `/node "Work Server"` both find the node. */
export function matchesName(node: NodeInfo, name: string): boolean {
  const wanted = name.trim().toLowerCase();
  return node.nodeId.toLowerCase() === wanted || node.displayName.toLowerCase() === wanted;
}

export type NameLookup =
  | { kind: "found"; node: NodeInfo }
  | { kind: "none" }
  | { kind: "ambiguous"; nodes: NodeInfo[] };

/**
 * Finds the node a user means by `name`: node ids first (they are unique), then display names.
 * Two nodes with that display name is a question back to the user, never a guess.
 */
export function lookupNode(nodes: readonly NodeInfo[], name: string): NameLookup {
  const wanted = name.trim().toLowerCase();
  const byId = nodes.find((node) => node.nodeId.toLowerCase() === wanted);
  if (byId) return { kind: "found", node: byId };
  const byName = nodes.filter((node) => node.displayName.toLowerCase() === wanted);
  if (byName.length === 1 && byName[0]) return { kind: "found", node: byName[0] };
  return byName.length === 0 ? { kind: "none" } : { kind: "ambiguous", nodes: byName };
}

/**
 * More than one node serves the user (revoked ones do not count): then every answer and notice
 * says which node it came from.
 */
export const severalNodes = (nodes: readonly NodeInfo[]) => nodes.filter((node) => !node.revoked).length > 1;
