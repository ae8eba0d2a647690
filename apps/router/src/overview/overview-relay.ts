import { randomUUID } from "node:crypto";
import { type HostOverviewFrame, OVERVIEW_CAPABILITY, type Overview } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";
import { servesUser } from "../registry/node-info.ts";
import type { NodeDirectory, NodeSender, RegistryEvent } from "../registry/node-registry.ts";

// What each host says a user is doing (sessions, tasks, plans, schedule, approvals), for the console
// pages that user has open. Asked only while a page of the user is open: when the first one opens,
// when a host says the user's overview changed, when a node comes online or starts serving them.
// One request per node and user at a time; a change announced meanwhile asks again once it is
// answered. A host's answer counts only for the request it was asked, from that node, about that
// user: a host cannot push one user's overview to another.

export interface NodeOverview {
  node: string;
  at: number;
  overview: Overview;
}

type Listener = (overview: NodeOverview) => void;

export interface OverviewRelayDeps {
  /** Who each node serves, and where overview requests are sent. */
  nodes: NodeDirectory & NodeSender;
  /** A request unanswered for this long is given up (the next change asks again). */
  timeoutMs: number;
  logger: Logger;
  newId?: () => string;
}

interface InFlight {
  nodeId: string;
  userId: string;
  timer: NodeJS.Timeout;
}

const keyOf = (nodeId: string, userId: string) => `${nodeId}\u0000${userId}`;

export class OverviewRelay {
  private readonly watchers = new Map<string, Set<Listener>>();
  /** Latest overview per watched user and node. */
  private readonly latest = new Map<string, Map<string, NodeOverview>>();
  /** Request id → what it asked. */
  private readonly inFlight = new Map<string, InFlight>();
  /** node+user pairs with a request in flight, and whether a change came in meanwhile. */
  private readonly asking = new Map<string, { again: boolean }>();

  constructor(private readonly deps: OverviewRelayDeps) {}

  /** A page of `userId` opened: it gets the latest overviews now and every new one until unsubscribed. */
  subscribe(userId: string, listener: Listener): () => void {
    let listeners = this.watchers.get(userId);
    const first = !listeners;
    if (!listeners) {
      listeners = new Set();
      this.watchers.set(userId, listeners);
    }
    listeners.add(listener);
    if (first) for (const node of this.deps.nodes.nodesForUser(userId)) this.ask(node, userId);
    else for (const overview of this.overviewsOf(userId)) listener(overview);
    return () => {
      listeners.delete(listener);
      if (listeners.size > 0) return;
      this.watchers.delete(userId);
      this.latest.delete(userId);
    };
  }

  /** `overview` and `overview_changed` from a node. */
  receive(nodeId: string, frame: HostOverviewFrame): void {
    if (frame.type === "overview_changed") {
      const node = this.deps.nodes.get(nodeId);
      if (!node) return;
      for (const userId of new Set(frame.user_ids)) if (this.watchers.has(userId)) this.ask(node, userId);
      return;
    }
    const asked = this.inFlight.get(frame.id);
    if (!asked || asked.nodeId !== nodeId || asked.userId !== frame.user_id) {
      this.deps.logger.warn(
        { nodeId, id: frame.id },
        "overview that answers no request of this node; dropped",
      );
      return;
    }
    this.settle(frame.id, asked);
    const node = this.deps.nodes.get(nodeId);
    // Still wanted: the page may have closed, the node stopped serving the user meanwhile.
    if (!node || !servesUser(node, asked.userId) || !this.watchers.has(asked.userId)) return;
    const overview: NodeOverview = { node: nodeId, at: frame.at, overview: frame.overview };
    const kept = this.latest.get(asked.userId) ?? new Map<string, NodeOverview>();
    this.latest.set(asked.userId, kept.set(nodeId, overview));
    for (const listener of this.watchers.get(asked.userId) ?? []) listener(overview);
  }

  /** An `error` frame with an id: true when it answers one of our requests (then it is handled here). */
  refused(nodeId: string, id: string, message: string): boolean {
    const asked = this.inFlight.get(id);
    if (!asked || asked.nodeId !== nodeId) return false;
    this.deps.logger.info({ nodeId, userId: asked.userId, message }, "overview refused by the node");
    this.settle(id, asked, false);
    return true;
  }

  /** Follows the registry: a node online or newly serving a watched user is asked; an old overview goes. */
  watch(subscribe: (listener: (event: RegistryEvent<unknown>) => void) => () => void): () => void {
    return subscribe((event) => {
      const { node } = event;
      for (const userId of this.watchers.keys()) {
        const kept = this.latest.get(userId);
        if (event.type === "offline" || !servesUser(node, userId)) kept?.delete(node.nodeId);
        // A node coming online hears of it once the router's register_ok, sent just after this event, went first.
        else if (event.type === "online") setImmediate(() => this.ask(node, userId));
        else if (!kept?.has(node.nodeId)) this.ask(node, userId);
      }
    });
  }

  /** The latest overviews of a user's nodes (tests, a page opened later). */
  overviewsOf(userId: string): NodeOverview[] {
    return [...(this.latest.get(userId)?.values() ?? [])];
  }

  /** Requests waiting for an answer (tests). */
  get pending(): number {
    return this.inFlight.size;
  }

  private ask(node: NodeInfo, userId: string): void {
    if (node.status !== "online" || !node.capabilities.includes(OVERVIEW_CAPABILITY)) return;
    if (!servesUser(node, userId)) return;
    const key = keyOf(node.nodeId, userId);
    const asking = this.asking.get(key);
    if (asking) {
      asking.again = true;
      return;
    }
    const id = `overview-${this.deps.newId?.() ?? randomUUID()}`;
    const asked: InFlight = {
      nodeId: node.nodeId,
      userId,
      timer: setTimeout(() => {
        this.deps.logger.info({ nodeId: node.nodeId, userId }, "overview not answered in time");
        this.settle(id, asked, false);
      }, this.deps.timeoutMs),
    };
    this.inFlight.set(id, asked);
    this.asking.set(key, { again: false });
    if (!this.deps.nodes.send(node.nodeId, { type: "overview_request", id, user_id: userId }))
      this.settle(id, asked, false);
  }

  /** The request is over; one announced change meanwhile asks again (`retry`: unless it failed). */
  private settle(id: string, asked: InFlight, retry = true): void {
    clearTimeout(asked.timer);
    this.inFlight.delete(id);
    const key = keyOf(asked.nodeId, asked.userId);
    const again = this.asking.get(key)?.again ?? false;
    this.asking.delete(key);
    const node = this.deps.nodes.get(asked.nodeId);
    if (retry && again && node && this.watchers.has(asked.userId)) this.ask(node, asked.userId);
  }
}
