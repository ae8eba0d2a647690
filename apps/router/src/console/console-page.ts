import type { Logger } from "@phonework/runtime";
import { WebSocket } from "ws";
import { rawBytes } from "../node-link/raw-text.ts";
import type { NodeOverview, OverviewRelay } from "../overview/overview-relay.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import type { TerminalEndReason, TerminalRelay, TerminalViewer } from "../terminals/terminal-relay.ts";
import type { ConsoleAdapter } from "./console-adapter.ts";
import { consoleChatId } from "./console-adapter.ts";
import { ConsoleCloseCode } from "./console-close-codes.ts";
import type { ChatFrame, ConsoleFeed } from "./console-feed.ts";
import { ConsoleClientFrame, type ConsoleServerFrame } from "./console-frames.ts";
import { adminNode, consoleNode } from "./console-node-view.ts";
import type { ConsoleSession } from "./console-sessions.ts";

// One open console page: its WebSocket, from the `hello` with the user's nodes and recent chat to
// the close. The page's frames are checked and handed to the chat adapter or the terminal relay;
// node changes are sent coalesced (a reconnect storm is one update, not thousands); a ping every
// interval finds pages that went away and sessions that ended or expired.

export interface ConsolePageDeps {
  nodes: {
    nodesForUser(userId: string): NodeInfo[];
    get(nodeId: string): NodeInfo | undefined;
    list(): NodeInfo[];
  };
  feed: ConsoleFeed;
  adapter: ConsoleAdapter;
  terminals: TerminalRelay;
  overviews: Pick<OverviewRelay, "subscribe">;
  sessionIsLive: (id: string) => boolean;
  now: () => number;
  logger: Logger;
  /** How often the page is pinged (and its session checked). */
  heartbeatMs: number;
}

/** Node updates are sent at most this often. */
const NODES_EVERY_MS = 250;
/** Largest frame a page may send (a pasted screenful is far less; terminal input comes in pieces). */
export const MAX_PAGE_FRAME_BYTES = 256 * 1024;
/** A page with more than this unsent is not reading: it is cut off (it reconnects when it wakes). */
const MAX_UNSENT_BYTES = 32 * 1024 * 1024;

export class ConsolePage implements TerminalViewer {
  readonly userId: string;
  readonly chatId: string;
  private readonly unsubscribe: () => void;
  private readonly unwatch: () => void;
  private nodesTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private alive = true;
  /** Until the page says otherwise, an open page counts as watching (nothing pushed). */
  private visible = true;

  constructor(
    private readonly socket: WebSocket,
    readonly session: ConsoleSession,
    private readonly admin: boolean,
    private readonly deps: ConsolePageDeps,
  ) {
    this.userId = session.userId;
    this.chatId = consoleChatId(session.userId);
    this.send({
      type: "hello",
      user: this.userId,
      admin,
      nodes: this.nodes(),
      ...this.adminNodes(),
      messages: deps.feed.messages(this.userId),
      terminals: deps.terminals.heldFor(session.id),
      now: deps.now(),
    });
    this.unsubscribe = deps.feed.subscribe(this.userId, (frame: ChatFrame) => this.send(frame));
    this.unwatch = deps.overviews.subscribe(this.userId, (overview: NodeOverview) =>
      this.send({ type: "overview", ...overview }),
    );
    this.heartbeat = setInterval(() => this.beat(), deps.heartbeatMs);
    socket.on("pong", () => {
      this.alive = true;
    });
    socket.on("message", (data, isBinary) => this.receive(data, isBinary));
    socket.on("close", () => this.dispose());
    socket.on("error", (error) => deps.logger.debug({ err: error.message }, "console socket error"));
  }

  /** Some node changed: the page gets its nodes again, soon. */
  nodesChanged(): void {
    if (this.nodesTimer) return;
    this.nodesTimer = setTimeout(() => {
      this.nodesTimer = undefined;
      this.send({ type: "nodes", nodes: this.nodes(), ...this.adminNodes(), now: this.deps.now() });
    }, NODES_EVERY_MS);
  }

  /** Open and on screen: the user sees what happens (no push needed). */
  get watching(): boolean {
    return this.visible && this.socket.readyState === WebSocket.OPEN;
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  opened(id: string): void {
    this.send({ type: "term_opened", id });
  }

  output(id: string, data: string, bytes: number): void {
    this.send({ type: "term_output", id, data, bytes });
  }

  ended(id: string, end: { reason: TerminalEndReason; code?: number; message?: string }): void {
    this.send({ type: "term_exit", id, ...end });
  }

  private nodes() {
    return this.deps.nodes
      .nodesForUser(this.userId)
      .map((node) => consoleNode(node, this.userId, this.admin));
  }

  private adminNodes() {
    return this.admin ? { admin_nodes: this.deps.nodes.list().map(adminNode) } : {};
  }

  private send(frame: ConsoleServerFrame): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    if (this.socket.bufferedAmount > MAX_UNSENT_BYTES) {
      this.deps.logger.warn({ userId: this.userId }, "console page is not reading; cutting it off");
      this.socket.terminate();
      return;
    }
    this.socket.send(JSON.stringify(frame));
  }

  private beat(): void {
    if (!this.deps.sessionIsLive(this.session.id)) {
      this.close(ConsoleCloseCode.SIGNED_OUT, "signed out");
      return;
    }
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    const raw = rawBytes(data);
    if (isBinary || raw.length > MAX_PAGE_FRAME_BYTES) {
      this.close(ConsoleCloseCode.BAD_FRAME, isBinary ? "binary frames are not read" : "frame too large");
      return;
    }
    let parsed: ReturnType<typeof ConsoleClientFrame.safeParse>;
    try {
      parsed = ConsoleClientFrame.safeParse(JSON.parse(raw.toString("utf8")));
    } catch {
      this.send({ type: "toast", text: "The router could not read that (not JSON)." });
      return;
    }
    if (!parsed.success) {
      this.send({
        type: "toast",
        text: `The router could not read that: ${parsed.error.issues[0]?.message}`,
      });
      return;
    }
    this.handle(parsed.data);
  }

  private handle(frame: ConsoleClientFrame): void {
    const { adapter, terminals, logger } = this.deps;
    switch (frame.type) {
      case "chat":
        adapter.receive(this.userId, frame.text).catch((error: unknown) => {
          logger.error({ err: error, userId: this.userId }, "console message not stored");
          this.send({ type: "toast", text: "Not sent: the router could not store it. Try again." });
        });
        return;
      case "voice":
        adapter
          .receiveVoice(this.userId, Buffer.from(frame.data_base64, "base64"), frame.mime_type)
          .catch((error: unknown) => {
            logger.error({ err: error, userId: this.userId }, "console voice note not stored");
            this.send({ type: "toast", text: "Not sent: the router could not store it. Try again." });
          });
        return;
      case "press":
        adapter
          .press(this.userId, frame.data, frame.message_id)
          .then((text) => this.send({ type: "toast", text }))
          .catch((error: unknown) =>
            logger.error({ err: error, userId: this.userId }, "console press failed"),
          );
        return;
      case "term_open": {
        const opened = terminals.open(this, this.deps.nodes.get(frame.node), frame);
        this.send(
          opened.ok
            ? { type: "term_started", ref: frame.ref, id: opened.id, node: frame.node }
            : { type: "term_failed", ref: frame.ref, message: opened.message },
        );
        return;
      }
      case "term_attach": {
        const attached = terminals.attach(this, this.session.id, frame.id, (node) =>
          this.send({ type: "term_started", ref: frame.ref, id: frame.id, node }),
        );
        if (!attached.ok) this.send({ type: "term_failed", ref: frame.ref, message: attached.message });
        return;
      }
      case "term_input":
        terminals.input(this, frame.id, frame.data);
        return;
      case "term_resize":
        terminals.resize(this, frame.id, frame.cols, frame.rows);
        return;
      case "term_ack":
        terminals.ack(this, frame.id, frame.bytes);
        return;
      case "term_close":
        terminals.close(this, frame.id);
        return;
      case "visibility":
        this.visible = frame.visible;
        return;
    }
  }

  private dispose(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.nodesTimer);
    this.unsubscribe();
    this.unwatch();
    // Gone while still signed in (a reload, a dropped connection): its terminals wait for the next page.
    if (this.deps.sessionIsLive(this.session.id)) this.deps.terminals.holdPage(this, this.session.id);
    else this.deps.terminals.closePage(this);
  }
}
