import type { ConsoleServerFrame } from "../../src/console/console-frames.ts";
import type { ConsoleLink } from "./console-link.ts";

// The page's terminals on the one WebSocket: each panel registers a sink under its own `ref`
// before asking for a terminal (or taking back one its sign-in left open), and gets the router's
// id, output and end through it. When the socket drops, the router holds the terminals for a
// while: the panels wait, and take them back once the new socket's `hello` lists them.

export type TerminalFrame = Extract<
  ConsoleServerFrame,
  { type: "term_started" | "term_failed" | "term_opened" | "term_output" | "term_exit" }
>;

export interface TerminalSink {
  started(id: string): void;
  opened(): void;
  output(data: string, bytes: number): void;
  /** The terminal is gone (or never came): a line saying why. */
  ended(text: string): void;
  /** Not gone, but not reachable for now (the connection to the router dropped). */
  waiting(text: string): void;
}

/** A terminal the router holds for this sign-in, listed in `hello`. */
export interface HeldTerminal {
  id: string;
  node: string;
}

/** Most characters of keystrokes in one frame (a paste goes in pieces). */
const INPUT_PIECE = 16_000;

export class TerminalHub {
  private readonly byRef = new Map<string, TerminalSink>();
  private readonly byId = new Map<string, TerminalSink>();
  /** The ref each terminal id was asked for under, to take it back under the same ref. */
  private readonly refOf = new Map<string, string>();

  constructor(private readonly link: ConsoleLink) {}

  open(ref: string, node: string, size: { cols: number; rows: number }, sink: TerminalSink): void {
    this.byRef.set(ref, sink);
    if (!this.link.send({ type: "term_open", ref, node, cols: size.cols, rows: size.rows }))
      sink.ended("not connected to the router");
  }

  /** Takes back a terminal the router held for this sign-in (a panel made for it after a reload). */
  attach(ref: string, id: string, sink: TerminalSink): void {
    this.byRef.set(ref, sink);
    if (!this.link.send({ type: "term_attach", ref, id })) sink.ended("not connected to the router");
  }

  /**
   * A new socket said which terminals the router still holds for this sign-in: the panels that
   * were waiting take theirs back, the others end, and `add` makes a panel for each held one this
   * page has none for (a reload).
   */
  resume(held: readonly HeldTerminal[], add: (terminal: HeldTerminal) => void): void {
    const listed = new Set(held.map((terminal) => terminal.id));
    for (const [id, sink] of [...this.byId]) {
      const ref = this.refOf.get(id);
      if (listed.has(id) && ref && this.link.send({ type: "term_attach", ref, id })) continue;
      sink.ended("the connection to the router was lost");
      this.byId.delete(id);
    }
    for (const terminal of held) if (!this.byId.has(terminal.id)) add(terminal);
  }

  input(id: string, data: string): void {
    for (let at = 0; at < data.length; at += INPUT_PIECE)
      this.link.send({ type: "term_input", id, data: data.slice(at, at + INPUT_PIECE) });
  }

  resize(id: string, cols: number, rows: number): void {
    this.link.send({ type: "term_resize", id, cols, rows });
  }

  ack(id: string, bytes: number): void {
    if (bytes > 0) this.link.send({ type: "term_ack", id, bytes });
  }

  /** The panel is closed: the terminal (if any) ends on the host. */
  close(ref: string, id: string | undefined): void {
    this.byRef.delete(ref);
    if (id === undefined) return;
    this.refOf.delete(id);
    if (this.byId.delete(id)) this.link.send({ type: "term_close", id });
  }

  /** The socket dropped: the router holds the terminals for a while; `resume` says which are left. */
  disconnected(): void {
    for (const sink of this.byId.values()) sink.waiting("reconnecting…");
  }

  /** Signed out: the router has ended every terminal of this sign-in. */
  signedOut(): void {
    for (const sink of this.byId.values()) sink.ended("signed out");
    this.byId.clear();
  }

  receive(frame: TerminalFrame): void {
    switch (frame.type) {
      case "term_started": {
        const sink = this.byRef.get(frame.ref);
        if (!sink) return;
        this.byId.set(frame.id, sink);
        this.refOf.set(frame.id, frame.ref);
        sink.started(frame.id);
        return;
      }
      case "term_failed":
        this.byRef.get(frame.ref)?.ended(`no terminal: ${frame.message}`);
        return;
      case "term_opened":
        this.byId.get(frame.id)?.opened();
        return;
      case "term_output":
        this.byId.get(frame.id)?.output(frame.data, frame.bytes);
        return;
      case "term_exit":
        this.byId.get(frame.id)?.ended(exitText(frame));
        this.byId.delete(frame.id);
        this.refOf.delete(frame.id);
        return;
    }
  }
}

function exitText(frame: Extract<TerminalFrame, { type: "term_exit" }>): string {
  if (frame.message) return `terminal closed: ${frame.message}`;
  switch (frame.reason) {
    case "exited":
      return `the shell exited${frame.code !== undefined ? ` (code ${frame.code})` : ""}`;
    case "idle":
      return "terminal closed after a long time without input";
    case "stopping":
      return "terminal closed: the host is stopping";
    case "closed":
      return "terminal closed";
    default:
      return "terminal ended";
  }
}
