import {
  type ErrorCode,
  type HostFrame,
  MAX_TERMINAL_DATA,
  type TerminalOpenFrame,
  type TerminalRouterFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { TerminalManager } from "./terminal-manager.ts";
import { TerminalRefusal } from "./terminal-refusal.ts";
import type { TerminalSession } from "./terminal-session.ts";

// Terminals the router opens on this host (the web console): its frames drive them, their output
// goes back as `terminal_output`. Output is sent live, never through the outbox, in pieces of at
// most 16 KiB, only within the window the router's acks keep open, and only while the socket has
// little queued: a chat answer on the same link waits behind at most that little. A user drives
// only the terminals they opened. The link going down closes them all: nobody is left to see them.

export interface LinkTerminalsDeps {
  manager: TerminalManager;
  /** Sends a frame now; false when the link is down. */
  send: (frame: HostFrame) => boolean;
  /** Bytes the link's socket has queued and not yet written. */
  backlog: () => number;
  /** SERVES_USERS, as the host reads it. */
  servesUser: (userId: string) => boolean;
  /** Output a terminal may have unacknowledged: TERMINAL_BUFFER_BYTES. */
  windowBytes: number;
  logger: Logger;
}

interface LinkTerminal {
  id: string;
  userId: string;
  session?: TerminalSession;
  /** The next output frame's number. */
  seq: number;
  /** A close (or the link's end) came while it was opening. */
  cancelled?: boolean;
  /** Keystrokes and the last size that came while it was opening: applied once it runs. */
  early: { input: string; size?: { cols: number; rows: number } };
}

/** Most UTF-8 bytes of output in one frame. */
export const OUTPUT_CHUNK_BYTES = 16 * 1024;
/** Output is handed to the socket only while it has less than this queued. */
export const SOCKET_HIGH_WATER_BYTES = 64 * 1024;
/** Keystrokes kept for a terminal still opening, at most (a paste typed at once). */
const MAX_EARLY_INPUT = MAX_TERMINAL_DATA;
/** How soon output held back by a full socket is tried again. */
const SOCKET_RETRY_MS = 10;

export class LinkTerminals {
  private readonly terminals = new Map<string, LinkTerminal>();
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly deps: LinkTerminalsDeps) {}

  handle(frame: TerminalRouterFrame): void {
    switch (frame.type) {
      case "terminal_open":
        void this.open(frame);
        return;
      case "terminal_ack": {
        // An ack may trail the terminal's end: one for no terminal, or not from its owner, is ignored.
        const entry = this.terminals.get(frame.id);
        if (entry?.userId !== frame.user_id || !entry.session) return;
        entry.session.ack(frame.bytes);
        this.pump(entry);
        return;
      }
    }
    const entry = this.owned(frame);
    if (!entry) return;
    switch (frame.type) {
      case "terminal_input":
        if (entry.session) entry.session.write(frame.data);
        else if (entry.early.input.length + frame.data.length <= MAX_EARLY_INPUT)
          entry.early.input += frame.data;
        else
          this.refuse(frame, "QUEUE_FULL", `terminal ${frame.id} is still opening; type again once it runs`);
        return;
      case "terminal_resize":
        if (entry.session) entry.session.resize(frame.cols, frame.rows);
        else entry.early.size = { cols: frame.cols, rows: frame.rows };
        return;
      case "terminal_close":
        // Its exit frame follows its end (reason "closed"), after nothing more is read.
        if (entry.session) void entry.session.close("closed");
        else entry.cancelled = true;
        return;
    }
  }

  /** The link is down: its terminals are closed, with no one to tell. */
  disconnected(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    for (const entry of this.terminals.values()) {
      entry.cancelled = true;
      void entry.session?.close("closed");
    }
    this.terminals.clear();
  }

  /** The host is stopping: every terminal is closed, and the router told (reason "stopping"). */
  async close(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((entry) => entry.session?.close("stopping")));
    this.disconnected();
  }

  private async open(frame: TerminalOpenFrame): Promise<void> {
    if (!this.deps.servesUser(frame.user_id))
      return this.refuse(frame, "UNAUTHORIZED", `this node does not serve ${frame.user_id}`);
    if (this.terminals.has(frame.id))
      return this.refuse(frame, "BAD_FRAME", `terminal ${frame.id} is already open on this node`);
    const entry: LinkTerminal = { id: frame.id, userId: frame.user_id, seq: 0, early: { input: "" } };
    this.terminals.set(frame.id, entry);
    let session: TerminalSession;
    try {
      session = await this.deps.manager.open({
        owner: { userId: frame.user_id, chatId: frame.chat_id, platform: frame.platform },
        cols: frame.cols,
        rows: frame.rows,
      });
    } catch (error) {
      if (this.terminals.get(frame.id) === entry) this.terminals.delete(frame.id);
      const refusal =
        error instanceof TerminalRefusal ? error : new TerminalRefusal("INTERNAL", String(error));
      return this.refuse(frame, refusal.code, refusal.message);
    }
    if (entry.cancelled) {
      // Closed while it opened; after a close frame the router still gets its exit.
      entry.session = session;
      void session.close("closed");
      if (this.terminals.get(frame.id) === entry) session.onReadable(() => this.pump(entry));
      return;
    }
    entry.session = session;
    this.deps.send({
      type: "terminal_opened",
      id: frame.id,
      user_id: frame.user_id,
      window: this.deps.windowBytes,
    });
    const { input, size } = entry.early;
    if (size) session.resize(size.cols, size.rows);
    if (input) session.write(input);
    entry.early = { input: "" };
    session.onReadable(() => this.pump(entry));
    this.pump(entry);
  }

  /** Sends what the window and the socket allow; once all is sent after the end, the exit. */
  private pump(entry: LinkTerminal): void {
    const { session } = entry;
    if (!session || this.terminals.get(entry.id) !== entry) return;
    while (this.deps.backlog() < SOCKET_HIGH_WATER_BYTES) {
      const data = session.read(OUTPUT_CHUNK_BYTES);
      if (!data) break;
      if (!this.deps.send({ type: "terminal_output", id: entry.id, seq: entry.seq++, data })) return;
    }
    if (session.queuedBytes > 0) {
      // Held back by the socket (not the window, which an ack reopens): try again shortly.
      if (this.deps.backlog() >= SOCKET_HIGH_WATER_BYTES) this.retrySoon();
      return;
    }
    const end = session.end;
    if (!end) return;
    this.terminals.delete(entry.id);
    this.deps.send({
      type: "terminal_exit",
      id: entry.id,
      user_id: entry.userId,
      reason: end.reason,
      ...(end.code !== undefined ? { code: end.code } : {}),
    });
  }

  private retrySoon(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      for (const entry of [...this.terminals.values()]) this.pump(entry);
    }, SOCKET_RETRY_MS);
  }

  /** The terminal a frame names, if it is the frame's user's; otherwise the router is told why not. */
  private owned(frame: { id: string; user_id: string }): LinkTerminal | undefined {
    const entry = this.terminals.get(frame.id);
    if (!entry) {
      this.deps.send({ type: "terminal_exit", id: frame.id, user_id: frame.user_id, reason: "unknown" });
      return undefined;
    }
    if (entry.userId !== frame.user_id) {
      this.deps.logger.warn({ terminal: frame.id, userId: frame.user_id }, "a user tried another's terminal");
      this.refuse(frame, "UNAUTHORIZED", `terminal ${frame.id} is not yours`);
      return undefined;
    }
    return entry;
  }

  private refuse(frame: { id: string; user_id: string }, code: ErrorCode, message: string): void {
    this.deps.send({
      type: "terminal_refused",
      id: frame.id,
      user_id: frame.user_id,
      error: { code, message },
    });
  }
}
