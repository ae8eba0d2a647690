import type { RegisterFrame, RouterFrame, SessionSummary } from "@phonework/protocol";
import type { Clock } from "@phonework/runtime";
import type { PairedNode } from "../pairing/node-store.ts";
import { NameIndex } from "./name-index.ts";
import type { NodeInfo } from "./node-info.ts";
import { servesUser } from "./node-info.ts";

// Connected and recently seen nodes. A node that registers again with the same id (having proved
// the same key) takes over the record; the old connection is handed back to the caller to close.
// Paired nodes stay listed while offline until forgotten; nodes admitted by the shared secret are
// kept offline only up to a bound, so junk registrations cannot grow the router's memory.

/** Offline nodes without a pairing kept for their "last seen" line. */
const MAX_UNPAIRED_OFFLINE = 100;

/**
 * Who a node serves. A paired node: its owner and the users it is shared with; the host's own
 * SERVES_USERS can only narrow that. A node admitted by the shared secret: what it asks, or all.
 */
export function nodeAudience(requested: readonly string[], paired: PairedNode | undefined): string[] | "all" {
  const asked = [...new Set(requested)];
  if (!paired) return asked.length > 0 ? asked : "all";
  const granted = [paired.owner, ...paired.sharedWith];
  return asked.length > 0 ? granted.filter((user) => asked.includes(user)) : granted;
}

/** The part of a live connection the registry needs. */
export interface LiveConnection {
  /** False when the frame could not be sent (the socket is closing). */
  send(frame: RouterFrame): boolean;
  close(code: number, reason: string): void;
}

/** Sends frames to nodes by id, on whatever connection each has at the time. */
export interface NodeSender {
  /** False when the node has no open connection now. */
  send(nodeId: string, frame: RouterFrame): boolean;
}

/** Read-only view of the registry, for code that only looks nodes up. */
export interface NodeDirectory {
  get(nodeId: string): NodeInfo | undefined;
  nodesForUser(userId: string): NodeInfo[];
}

export type RegistryEvent<C> =
  /** `returning`: it was listed offline before. `joined`: its first registration after being paired. */
  | { type: "online"; node: NodeInfo; connection: C; returning: boolean; joined: boolean }
  | { type: "offline"; node: NodeInfo; connection: C }
  | { type: "changed"; node: NodeInfo };

interface Entry<C> {
  info: NodeInfo;
  connection: C | undefined;
  /** The host's own SERVES_USERS, kept to recompute the audience when shares change. */
  requested: readonly string[];
}

export class NodeRegistry<C extends LiveConnection = LiveConnection> implements NodeDirectory, NodeSender {
  private readonly entries = new Map<string, Entry<C>>();
  /** Offline nodes without a pairing, oldest first (the order they went offline). */
  private readonly unpairedOffline = new Set<string>();
  private readonly listeners = new Set<(event: RegistryEvent<C>) => void>();
  /** Every listed node's id and display name, for the display-name rule. */
  private readonly names = new NameIndex();

  constructor(private readonly clock: Clock) {}

  subscribe(listener: (event: RegistryEvent<C>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lists a paired node that is not connected (at start, and right after pairing). */
  addPaired(paired: PairedNode): void {
    if (this.entries.has(paired.nodeId)) return;
    const seen = paired.lastSeen ?? paired.pairedAt;
    this.names.set(paired.nodeId, paired.displayName);
    this.entries.set(paired.nodeId, {
      connection: undefined,
      requested: [],
      info: {
        nodeId: paired.nodeId,
        displayName: paired.displayName,
        servesUsers: nodeAudience([], paired),
        owner: paired.owner,
        paired: true,
        revoked: paired.revokedAt !== undefined,
        capabilities: [],
        workingDir: "",
        sessions: [],
        commands: [],
        tools: [],
        protocolVersion: 0,
        status: "offline",
        connectedAt: seen,
        lastSeen: seen,
      },
    });
  }

  /**
   * Records a registration; `paired` is the node's pairing, undefined for a node admitted by the
   * shared secret; `joined`, that this registration redeemed its join code. Returns the connection
   * it replaced, if the node was still connected.
   */
  attach(
    frame: RegisterFrame,
    protocolVersion: number,
    connection: C,
    paired?: PairedNode,
    joined = false,
  ): C | undefined {
    const now = this.clock.now();
    const previous = this.entries.get(frame.node_id);
    const info: NodeInfo = {
      nodeId: frame.node_id,
      displayName: frame.display_name,
      servesUsers: nodeAudience(frame.serves_users, paired),
      owner: paired?.owner,
      paired: paired !== undefined,
      revoked: false,
      capabilities: frame.capabilities,
      workingDir: frame.working_dir,
      sessions: frame.sessions,
      commands: frame.commands ?? [],
      tools: frame.tools ?? [],
      protocolVersion,
      status: "online",
      connectedAt: now,
      lastSeen: now,
    };
    this.entries.set(frame.node_id, { info, connection, requested: frame.serves_users });
    this.names.set(frame.node_id, frame.display_name);
    this.unpairedOffline.delete(frame.node_id);
    const returning = previous?.info.status === "offline";
    this.emit({ type: "online", node: info, connection, returning, joined });
    return previous?.connection;
  }

  /** Marks the node offline, unless a newer connection has already taken its place. */
  detach(nodeId: string, connection: C): boolean {
    const entry = this.entries.get(nodeId);
    if (!entry || entry.connection !== connection) return false;
    entry.connection = undefined;
    entry.info = { ...entry.info, status: "offline", lastSeen: this.clock.now() };
    this.emit({ type: "offline", node: entry.info, connection });
    if (!entry.info.paired) this.rememberUnpairedOffline(nodeId);
    return true;
  }

  /** Shares or the owner changed: who the node serves is worked out again. */
  updatePairing(paired: PairedNode): void {
    const entry = this.entries.get(paired.nodeId);
    if (!entry) return;
    entry.info = {
      ...entry.info,
      owner: paired.owner,
      servesUsers: nodeAudience(entry.requested, paired),
      revoked: paired.revokedAt !== undefined,
    };
    this.emit({ type: "changed", node: entry.info });
  }

  /** Removes an offline node from the list; false if it is unknown or still connected. */
  forget(nodeId: string): boolean {
    const entry = this.entries.get(nodeId);
    if (!entry || entry.connection) return false;
    this.entries.delete(nodeId);
    this.names.remove(nodeId);
    this.unpairedOffline.delete(nodeId);
    return true;
  }

  /** Keeps the newest MAX_UNPAIRED_OFFLINE of them; O(1), so a mass disconnect stays linear. */
  private rememberUnpairedOffline(nodeId: string): void {
    this.unpairedOffline.add(nodeId);
    if (this.unpairedOffline.size <= MAX_UNPAIRED_OFFLINE) return;
    const [oldest] = this.unpairedOffline;
    if (oldest === undefined) return;
    this.unpairedOffline.delete(oldest);
    this.entries.delete(oldest);
    this.names.remove(oldest);
  }

  touch(nodeId: string): void {
    const entry = this.entries.get(nodeId);
    if (entry?.connection) entry.info.lastSeen = this.clock.now();
  }

  updateSessions(nodeId: string, sessions: SessionSummary[], capabilities?: string[]): void {
    const entry = this.entries.get(nodeId);
    if (!entry) return;
    entry.info = { ...entry.info, sessions, ...(capabilities ? { capabilities } : {}) };
    this.emit({ type: "changed", node: entry.info });
  }

  get(nodeId: string): NodeInfo | undefined {
    return this.entries.get(nodeId)?.info;
  }

  send(nodeId: string, frame: RouterFrame): boolean {
    return this.entries.get(nodeId)?.connection?.send(frame) ?? false;
  }

  connection(nodeId: string): C | undefined {
    return this.entries.get(nodeId)?.connection;
  }

  /** The nodes whose id or display name could clash with `wanted` (lowercased, trimmed), see name-index.ts. */
  nameCandidates(wanted: string): NodeInfo[] {
    const found: NodeInfo[] = [];
    for (const id of this.names.candidates(wanted)) {
      const info = this.entries.get(id)?.info;
      if (info) found.push(info);
    }
    return found;
  }

  /** How many nodes are listed (the name index holds as many). */
  get size(): { listed: number; named: number } {
    return { listed: this.entries.size, named: this.names.size };
  }

  list(): NodeInfo[] {
    return [...this.entries.values()].map((entry) => entry.info);
  }

  /** Nodes that serve `userId`, online ones first, then by id. */
  nodesForUser(userId: string): NodeInfo[] {
    return this.list()
      .filter((node) => servesUser(node, userId))
      .sort((a, b) =>
        a.status === b.status ? a.nodeId.localeCompare(b.nodeId) : a.status === "online" ? -1 : 1,
      );
  }

  liveConnections(): C[] {
    return [...this.entries.values()].flatMap((entry) => (entry.connection ? [entry.connection] : []));
  }

  private emit(event: RegistryEvent<C>): void {
    for (const listener of this.listeners) listener(event);
  }
}
