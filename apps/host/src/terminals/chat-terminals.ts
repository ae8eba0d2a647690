import type { Logger } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { HeadlessScreen } from "./headless-screen.ts";
import { parseKeys } from "./key-notation.ts";
import { utf8Bytes } from "./output-queue.ts";
import { screenReply, statusText } from "./screen-reply.ts";
import type { TerminalManager } from "./terminal-manager.ts";
import { TerminalRefusal } from "./terminal-refusal.ts";
import type { TerminalSession } from "./terminal-session.ts";

// Terminals driven from chat (/term, /keys): one per user on this node, its output drawn on a
// headless screen that each answer shows. An answer waits for what the input caused, never for a
// fixed time: after /term for the program's first output (however slowly a busy machine starts it),
// after /keys for the first output since the keys; then for the output to be quiet a moment, so the
// screen shows what the program drew in one go. Each wait is bounded: a program that prints nothing
// (`cat`, or keys typed with echo off) is answered with the screen as it is once the wait for output
// has run out, and one that never stops printing once the wait for quiet has.

export interface ChatTerminalsDeps {
  manager: TerminalManager;
  /** TERMINAL_IDLE_S in ms: an ended program's last screen is kept this long too. */
  idleMs: number;
  cols?: number;
  rows?: number;
  /** How long /term waits for a new program's first output (default 5 s). */
  startOutputMs?: number;
  /** How long /keys waits for the first output after the keys (default 2 s). */
  keysOutputMs?: number;
  /** Once output came, the screen has settled when it has been quiet this long (default 400 ms)… */
  quietMs?: number;
  /** …or when output has been coming for this long without a pause (default 4 s). */
  maxWaitMs?: number;
  logger: Logger;
}

/** How long an answer waits for the screen (tests shorten the wait for programs that print nothing). */
export type ChatTerminalWaits = Pick<
  ChatTerminalsDeps,
  "startOutputMs" | "keysOutputMs" | "quietMs" | "maxWaitMs"
>;

interface ChatTerminal {
  session: TerminalSession;
  screen: HeadlessScreen;
  /** Chunks of output read so far (drawn, or about to be), and when the last one was read. */
  outputs: number;
  lastOutputAt: number;
  /** Called when output has been drawn or the program ended: what a waiting answer waits on. */
  changed: Set<() => void>;
  forget?: NodeJS.Timeout;
}

/** What an answer waits for: see `settle`. */
interface SettleWait {
  /** When the input was given. */
  since: number;
  /** Output drawn before the input: only later output answers it. */
  outputsBefore: number;
  /** How long to wait for that output; 0 when nothing was typed (the screen is shown as it settles). */
  outputMs: number;
}

/** Read from the PTY into the screen this much at a time. */
const CHUNK_BYTES = 16 * 1024;

const NONE = "No terminal here. /term <command> starts one.";

export class ChatTerminals {
  private readonly byUser = new Map<string, ChatTerminal>();
  private readonly cols: number;
  private readonly rows: number;
  private readonly startOutputMs: number;
  private readonly keysOutputMs: number;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly deps: ChatTerminalsDeps) {
    this.cols = deps.cols ?? 80;
    this.rows = deps.rows ?? 24;
    this.startOutputMs = deps.startOutputMs ?? 5000;
    this.keysOutputMs = deps.keysOutputMs ?? 2000;
    this.quietMs = deps.quietMs ?? 400;
    this.maxWaitMs = deps.maxWaitMs ?? 4000;
  }

  /** Runs `command` on a new PTY and shows its first screen. */
  async run(owner: ChatOwner, command: string): Promise<string> {
    const current = this.byUser.get(owner.userId);
    if (current && !current.session.end)
      return `❌ Your terminal still runs ${screenLabel(current.session)}: /term shows it, /keys types into it, /term close ends it.`;
    if (current) this.forget(owner.userId);
    const since = Date.now();
    let term: ChatTerminal;
    try {
      term = await this.start(owner, command);
    } catch (error) {
      if (error instanceof TerminalRefusal) return `❌ ${error.message}`;
      throw error;
    }
    await this.settle(term, { since, outputsBefore: 0, outputMs: this.startOutputMs });
    return this.render(term);
  }

  /** Types `text` (key notation) and shows the screen after. */
  async keys(owner: ChatOwner, text: string): Promise<string> {
    const term = this.byUser.get(owner.userId);
    if (!term) return NONE;
    const wait = { since: Date.now(), outputsBefore: term.outputs, outputMs: this.keysOutputMs };
    if (!term.session.write(parseKeys(text)))
      return `${this.render(term)}\n❌ Nothing was typed: the program has ended. /term <command> starts another.`;
    await this.settle(term, wait);
    return this.render(term);
  }

  async show(owner: ChatOwner): Promise<string> {
    const term = this.byUser.get(owner.userId);
    if (!term) return NONE;
    await this.settle(term, { since: Date.now(), outputsBefore: term.outputs, outputMs: 0 });
    return this.render(term);
  }

  async close(owner: ChatOwner): Promise<string> {
    const term = this.byUser.get(owner.userId);
    if (!term) return NONE;
    await term.session.close("closed");
    this.forget(owner.userId);
    return `Closed ${screenLabel(term.session)}.`;
  }

  async closeAll(): Promise<void> {
    const users = [...this.byUser.keys()];
    await Promise.all(users.map((user) => this.byUser.get(user)?.session.close("stopping")));
    for (const user of users) this.forget(user);
  }

  private async start(owner: ChatOwner, command: string): Promise<ChatTerminal> {
    // Loaded with the first chat terminal: a host that never shows one never parses xterm.
    const { HeadlessScreen } = await import("./headless-screen.ts");
    const session = await this.deps.manager.open({ owner, command, cols: this.cols, rows: this.rows });
    const screen = new HeadlessScreen(this.cols, this.rows, (answer) => session.reply(answer));
    const term: ChatTerminal = { session, screen, outputs: 0, lastOutputAt: 0, changed: new Set() };
    const changed = () => {
      for (const listener of term.changed) listener();
    };
    const draw = () => {
      for (let chunk = session.read(CHUNK_BYTES); chunk; chunk = session.read(CHUNK_BYTES)) {
        const bytes = utf8Bytes(chunk);
        term.outputs++;
        term.lastOutputAt = Date.now();
        screen.write(chunk, () => {
          session.ack(bytes);
          changed();
        });
      }
    };
    session.onReadable(draw);
    draw();
    void session.ended.then((end) => {
      changed();
      if (this.byUser.get(owner.userId) !== term) return;
      // Closed for want of input: nothing is left to show. Ended by itself: its last screen stays a while.
      if (end.reason === "idle") this.forget(owner.userId);
      else if (end.reason === "exited") {
        term.forget = setTimeout(() => this.forget(owner.userId, term), this.deps.idleMs);
        term.forget.unref();
      }
    });
    this.byUser.set(owner.userId, term);
    return term;
  }

  /**
   * Until the screen shows what the input caused: first its output (for at most `outputMs`; an
   * ended program has said all it will), then quiet for `quietMs` with everything read drawn (for
   * at most `maxWaitMs` after that output began). Wakes on output and on the end, not on a timer.
   */
  private async settle(term: ChatTerminal, wait: SettleWait): Promise<void> {
    const outputDeadline = wait.since + wait.outputMs;
    let quietDeadline: number | undefined;
    for (;;) {
      const now = Date.now();
      const drawn = term.session.queuedBytes === 0 && term.screen.settled;
      const heard = term.outputs > wait.outputsBefore;
      let wakeAt: number;
      if (!heard && !term.session.end && now < outputDeadline) {
        wakeAt = outputDeadline;
      } else {
        quietDeadline ??= now + this.maxWaitMs;
        const quietAt = term.lastOutputAt + this.quietMs;
        if (drawn && (term.session.end || now >= quietAt)) return;
        if (now >= quietDeadline) return;
        // Not yet drawn: the screen's callback wakes us; otherwise once the quiet period is over.
        wakeAt = Math.min(quietDeadline, drawn ? quietAt : quietDeadline);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          term.changed.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, wakeAt - now));
        term.changed.add(wake);
      });
    }
  }

  private render(term: ChatTerminal): string {
    const idleMinutes = Math.round(this.deps.idleMs / 60_000);
    return screenReply(term.session.label, statusText(term.session.end, idleMinutes), term.screen.text());
  }

  private forget(userId: string, only?: ChatTerminal): void {
    const term = this.byUser.get(userId);
    if (!term || (only && term !== only)) return;
    clearTimeout(term.forget);
    term.screen.dispose();
    this.byUser.delete(userId);
  }
}

function screenLabel(session: TerminalSession): string {
  const label = session.label.length > 60 ? `${session.label.slice(0, 59)}…` : session.label;
  return `"${label}"`;
}
