import type { RegisterFrame, SessionSummary } from "@phonework/protocol";
import type { Clock } from "@phonework/runtime";
import type { NodeInfo } from "./node-info.ts";
import { servesUser } from "./node-info.ts";

// Connected and recently seen nodes. A node that registers again with the same id takes over
// the record; the old connection is handed back to the caller to close.

/** The part of a live connection the registry needs. */
export interface LiveConnection {
  close(code: number, reason: string): void;
}

/** Read-only view of the registry, for code that only looks nodes up. */
export interface NodeDirectory {
  get(nodeId: string): NodeInfo | undefined;
  nodesForUser(userId: string): NodeInfo[];
}

export type RegistryEvent<C> =
  | { type: "online"; node: NodeInfo; connection: C; returning: boolean }
  | { type: "offline"; node: NodeInfo; connection: C }
  | { type: "changed"; node: NodeInfo };

interface Entry<C> {
  info: NodeInfo;
  connection: C | undefined;
}

export class NodeRegistry<C extends LiveConnection = LiveConnection> implements NodeDirectory {
  private readonly entries = new Map<string, Entry<C>>();
  private readonly listeners = new Set<(event: RegistryEvent<C>) => void>();

  constructor(private readonly clock: Clock) {}

  subscribe(listener: (event: RegistryEvent<C>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records a registration. Returns the connection it replaced, if the node was still connected. */
  attach(frame: RegisterFrame, protocolVersion: number, connection: C): C | undefined {
    const now = this.clock.now();
    const previous = this.entries.get(frame.node_id);
    const info: NodeInfo = {
      nodeId: frame.node_id,
      displayName: frame.display_name,
      servesUsers: [...new Set(frame.serves_users)],
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
    this.entries.set(frame.node_id, { info, connection });
    const returning = previous?.info.status === "offline";
    this.emit({ type: "online", node: info, connection, returning });
    return previous?.connection;
  }

  /** Marks the node offline, unless a newer connection has already taken its place. */
  detach(nodeId: string, connection: C): boolean {
    const entry = this.entries.get(nodeId);
    if (!entry || entry.connection !== connection) return false;
    entry.connection = undefined;
    entry.info = { ...entry.info, status: "offline", lastSeen: this.clock.now() };
    this.emit({ type: "offline", node: entry.info, connection });
    return true;
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

  connection(nodeId: string): C | undefined {
    return this.entries.get(nodeId)?.connection;
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
