import { randomUUID } from "node:crypto";
import {
  type HostTerminalFrame,
  type RouterFrame,
  TERMINAL_CAPABILITY,
  type TerminalExitReason,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";
import { servesUser } from "../registry/node-info.ts";
import type { NodeDirectory, NodeSender, RegistryEvent } from "../registry/node-registry.ts";

// Console terminals, relayed between a page and a host. The router picks each terminal's id and
// remembers which page opened it on which node: a page drives only its own terminals, only on
// nodes that serve its user, and a host's frames count only for terminals on that host. Output is
// passed on as it comes; the host's credits (terminal_ack) go back only as the page reports it has
// written the output to its screen, so a slow browser slows the program, not the router's memory.
// A page that goes away while its sign-in lives (a reload, a phone dropping its connection) leaves
// its terminals held for a while: their output waits (within the host's window, as no credit flows)
// and a page of the same sign-in may take them back. A terminal ends with its page (closed, signed
// out, not back in time), its node (offline, revoked, no longer serving the user) and its program.

export type TerminalEndReason = TerminalExitReason | "offline" | "refused" | "gone";

/** The page side of a terminal: one open console page. */
export interface TerminalViewer {
  readonly userId: string;
  /** The console chat the terminal is opened from (hosts record its owner). */
  readonly chatId: string;
  opened(id: string): void;
  output(id: string, data: string, bytes: number): void;
  ended(id: string, end: { reason: TerminalEndReason; code?: number; message?: string }): void;
}

export interface TerminalRelayDeps {
  /** Who each node serves, and where terminal frames are sent. */
  nodes: NodeDirectory & NodeSender;
  /** Output of one terminal the router holds unacknowledged, at most (CONSOLE_TERMINAL_BUFFER_BYTES). */
  bufferBytes: number;
  /** The platform name hosts record as the terminal's owner's. */
  platform: string;
  /** How long a terminal whose page went away waits for a page of the same sign-in. */
  reattachMs: number;
  logger: Logger;
  newId?: () => string;
}

/** Terminals one page may have open; the host's MAX_TERMINALS is the limit that matters. */
export const MAX_TERMINALS_PER_PAGE = 4;

/** Where a held terminal's output waits for a page of its sign-in to take it back. */
class HeldTerminal implements TerminalViewer {
  isOpen = false;
  readonly chunks: Array<{ data: string; bytes: number }> = [];

  constructor(
    readonly sessionId: string,
    readonly userId: string,
    readonly chatId: string,
    readonly expiry: NodeJS.Timeout,
  ) {}

  opened(): void {
    this.isOpen = true;
  }

  output(_id: string, data: string, bytes: number): void {
    this.chunks.push({ data, bytes });
  }

  ended(): void {}
}

interface RelayedTerminal {
  id: string;
  nodeId: string;
  /** The page it shows on, or what holds it while no page does. */
  viewer: TerminalViewer;
  /** The host's window, once it said the terminal runs. */
  window?: number;
  /** Output passed to the page and not yet acknowledged by it. */
  unacked: number;
}

export type OpenResult = { ok: true; id: string } | { ok: false; message: string };

export class TerminalRelay {
  private readonly terminals = new Map<string, RelayedTerminal>();

  constructor(private readonly deps: TerminalRelayDeps) {}

  open(viewer: TerminalViewer, node: NodeInfo | undefined, size: { cols: number; rows: number }): OpenResult {
    if (!node || !servesUser(node, viewer.userId)) return { ok: false, message: "no such node" };
    if (node.status !== "online") return { ok: false, message: `${node.nodeId} is offline` };
    if (!node.capabilities.includes(TERMINAL_CAPABILITY))
      return { ok: false, message: `${node.nodeId} has no terminals (node-pty did not load there)` };
    if (this.of(viewer).length >= MAX_TERMINALS_PER_PAGE)
      return { ok: false, message: `at most ${MAX_TERMINALS_PER_PAGE} terminals per page` };
    const id = `console-${this.deps.newId?.() ?? randomUUID()}`;
    const terminal: RelayedTerminal = { id, nodeId: node.nodeId, viewer, unacked: 0 };
    this.terminals.set(id, terminal);
    const sent = this.deps.nodes.send(node.nodeId, {
      type: "terminal_open",
      id,
      user_id: viewer.userId,
      chat_id: viewer.chatId,
      platform: this.deps.platform,
      cols: size.cols,
      rows: size.rows,
    });
    if (!sent) {
      this.terminals.delete(id);
      return { ok: false, message: `${node.nodeId} is offline` };
    }
    return { ok: true, id };
  }

  input(viewer: TerminalViewer, id: string, data: string): void {
    const terminal = this.mine(viewer, id);
    if (terminal) this.toHost(terminal, { type: "terminal_input", id, user_id: viewer.userId, data });
  }

  resize(viewer: TerminalViewer, id: string, cols: number, rows: number): void {
    const terminal = this.mine(viewer, id);
    if (terminal) this.toHost(terminal, { type: "terminal_resize", id, user_id: viewer.userId, cols, rows });
  }

  /** The page wrote `bytes` of output to its screen: the host may send that much more. */
  ack(viewer: TerminalViewer, id: string, bytes: number): void {
    const terminal = this.mine(viewer, id);
    if (!terminal) return;
    const credit = Math.min(bytes, terminal.unacked); // a page cannot open the window wider than it was
    if (credit <= 0) return;
    terminal.unacked -= credit;
    this.toHost(terminal, { type: "terminal_ack", id, user_id: viewer.userId, bytes: credit });
  }

  close(viewer: TerminalViewer, id: string): void {
    const terminal = this.mine(viewer, id);
    if (terminal) this.end(terminal, { reason: "closed" }, true);
  }

  /** The page closed, or its sign-in ended: its terminals go with it. */
  closePage(viewer: TerminalViewer): void {
    for (const terminal of this.of(viewer)) this.end(terminal, { reason: "closed" }, true, false);
  }

  /** The page went away, its sign-in (`sessionId`) still valid: its terminals wait for a page of it. */
  holdPage(viewer: TerminalViewer, sessionId: string): void {
    for (const terminal of this.of(viewer)) {
      const expiry = setTimeout(
        () => this.end(terminal, { reason: "closed" }, true, false),
        this.deps.reattachMs,
      );
      const held = new HeldTerminal(sessionId, viewer.userId, viewer.chatId, expiry);
      held.isOpen = terminal.window !== undefined;
      terminal.viewer = held;
    }
  }

  /** The terminals held for a sign-in, for its next page to take back. */
  heldFor(sessionId: string): Array<{ id: string; node: string }> {
    return [...this.terminals.values()]
      .filter(
        (terminal) => terminal.viewer instanceof HeldTerminal && terminal.viewer.sessionId === sessionId,
      )
      .map((terminal) => ({ id: terminal.id, node: terminal.nodeId }));
  }

  /**
   * A page of the same sign-in (and so the same user) takes a held terminal back: `attached` is
   * told its node first, then the page gets what the terminal printed meanwhile. Any other page is
   * refused, as if there were no such terminal.
   */
  attach(
    viewer: TerminalViewer,
    sessionId: string,
    id: string,
    attached: (node: string) => void,
  ): OpenResult {
    const terminal = this.terminals.get(id);
    const held = terminal?.viewer;
    if (
      !terminal ||
      !(held instanceof HeldTerminal) ||
      held.sessionId !== sessionId ||
      held.userId !== viewer.userId
    )
      return { ok: false, message: "no such terminal (it ended, or is not this sign-in's)" };
    clearTimeout(held.expiry);
    terminal.viewer = viewer;
    attached(terminal.nodeId);
    if (held.isOpen) viewer.opened(id);
    for (const chunk of held.chunks) viewer.output(id, chunk.data, chunk.bytes);
    return { ok: true, id };
  }

  /** These sign-ins ended (logout, logout-all, expiry): the terminals held for them end now. */
  endSessions(sessionIds: readonly string[]): void {
    const ended = new Set(sessionIds);
    for (const terminal of [...this.terminals.values()])
      if (terminal.viewer instanceof HeldTerminal && ended.has(terminal.viewer.sessionId))
        this.end(terminal, { reason: "closed" }, true, false);
  }

  /** A terminal frame from `nodeId`; one about a terminal not on that node is ignored. */
  receive(nodeId: string, frame: HostTerminalFrame): void {
    const terminal = this.terminals.get(frame.id);
    if (!terminal || terminal.nodeId !== nodeId) {
      this.deps.logger.debug(
        { nodeId, terminal: frame.id, type: frame.type },
        "frame for no console terminal",
      );
      return;
    }
    switch (frame.type) {
      case "terminal_opened":
        if (frame.window > this.deps.bufferBytes) {
          this.end(
            terminal,
            {
              reason: "refused",
              message:
                `${nodeId} sends up to ${frame.window} bytes ahead (its TERMINAL_BUFFER_BYTES), more than ` +
                `this router holds per terminal (CONSOLE_TERMINAL_BUFFER_BYTES=${this.deps.bufferBytes})`,
            },
            true,
          );
          return;
        }
        terminal.window = frame.window;
        terminal.viewer.opened(terminal.id);
        return;
      case "terminal_output": {
        const bytes = Buffer.byteLength(frame.data, "utf8");
        terminal.unacked += bytes;
        if (terminal.window === undefined || terminal.unacked > terminal.window) {
          this.deps.logger.warn(
            { nodeId, terminal: terminal.id, unacked: terminal.unacked, window: terminal.window },
            "host sent terminal output beyond its window; closing the terminal",
          );
          this.end(terminal, { reason: "closed", message: "the host sent more output than it may" }, true);
          return;
        }
        terminal.viewer.output(terminal.id, frame.data, bytes);
        return;
      }
      case "terminal_exit":
        this.end(
          terminal,
          { reason: frame.reason, ...(frame.code !== undefined ? { code: frame.code } : {}) },
          false,
        );
        return;
      case "terminal_refused":
        // Refusing the open ends it; refusing a later frame only says why.
        if (terminal.window === undefined)
          this.end(terminal, { reason: "refused", message: frame.error.message }, false);
        else
          this.deps.logger.warn(
            { nodeId, terminal: terminal.id, error: frame.error },
            "terminal frame refused",
          );
        return;
    }
  }

  /**
   * Follows the registry: a node going offline, revoked or no longer serving a user ends those
   * terminals. So does it coming online: a host closes its terminals when its link drops, and a
   * reconnect can take the old connection's place before the router has seen that one close.
   */
  watch(subscribe: (listener: (event: RegistryEvent<unknown>) => void) => () => void): () => void {
    return subscribe((event) => {
      for (const terminal of [...this.terminals.values()]) {
        if (terminal.nodeId !== event.node.nodeId) continue;
        if (event.type === "offline" || event.type === "online")
          this.end(terminal, { reason: "offline", message: `${terminal.nodeId} went offline` }, false);
        else if (event.node.revoked)
          this.end(terminal, { reason: "gone", message: `${terminal.nodeId} was revoked` }, false);
        else if (!servesUser(event.node, terminal.viewer.userId))
          this.end(terminal, { reason: "gone", message: `${terminal.nodeId} no longer serves you` }, true);
      }
    });
  }

  /** Terminals open through the router (tests, /health). */
  get size(): number {
    return this.terminals.size;
  }

  private of(viewer: TerminalViewer): RelayedTerminal[] {
    return [...this.terminals.values()].filter((terminal) => terminal.viewer === viewer);
  }

  private mine(viewer: TerminalViewer, id: string): RelayedTerminal | undefined {
    const terminal = this.terminals.get(id);
    return terminal?.viewer === viewer ? terminal : undefined;
  }

  /**
   * A frame for the host of an open terminal. If the node has no connection, its link went away
   * before the registry said so: the page is told what the registry's event would have told it.
   */
  private toHost(terminal: RelayedTerminal, frame: RouterFrame): void {
    if (!this.deps.nodes.send(terminal.nodeId, frame))
      this.end(terminal, { reason: "offline", message: `${terminal.nodeId} went offline` }, false);
  }

  /** Forgets the terminal, tells the host to close it (`closeOnHost`) and the page why it ended (`tell`). */
  private end(
    terminal: RelayedTerminal,
    end: { reason: TerminalEndReason; code?: number; message?: string },
    closeOnHost: boolean,
    tell = true,
  ): void {
    if (this.terminals.get(terminal.id) !== terminal) return;
    this.terminals.delete(terminal.id);
    if (terminal.viewer instanceof HeldTerminal) clearTimeout(terminal.viewer.expiry);
    if (closeOnHost)
      this.deps.nodes.send(terminal.nodeId, {
        type: "terminal_close",
        id: terminal.id,
        user_id: terminal.viewer.userId,
      });
    if (tell) terminal.viewer.ended(terminal.id, end);
  }
}
