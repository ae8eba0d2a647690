import type { Logger } from "@phonework/runtime";
import type { HeadlessScreen } from "./headless-screen.ts";
import { parseKeys } from "./key-notation.ts";
import { utf8Bytes } from "./output-queue.ts";
import { screenReply, statusText } from "./screen-reply.ts";
import type { TerminalManager } from "./terminal-manager.ts";
import { TerminalRefusal } from "./terminal-refusal.ts";
import type { TerminalOwner, TerminalSession } from "./terminal-session.ts";

// Terminals driven from chat (/term, /keys): one per user on this node, its output drawn on a
// headless screen that each answer shows. After input the answer waits, briefly and boundedly, for
// the program's output to settle, so the screen shows what the keys did.

export interface ChatTerminalsDeps {
  manager: TerminalManager;
  /** TERMINAL_IDLE_S in ms: an ended program's last screen is kept this long too. */
  idleMs: number;
  cols?: number;
  rows?: number;
  /** The output has settled once it has been quiet this long… */
  quietMs?: number;
  /** …or this long after the input, whatever the program still does. */
  maxWaitMs?: number;
  logger: Logger;
}

interface ChatTerminal {
  session: TerminalSession;
  screen: HeadlessScreen;
  lastOutputAt: number;
  forget?: NodeJS.Timeout;
}

/** Read from the PTY into the screen this much at a time. */
const CHUNK_BYTES = 16 * 1024;

const NONE = "No terminal here. /term <command> starts one.";

export class ChatTerminals {
  private readonly byUser = new Map<string, ChatTerminal>();
  private readonly cols: number;
  private readonly rows: number;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly deps: ChatTerminalsDeps) {
    this.cols = deps.cols ?? 80;
    this.rows = deps.rows ?? 24;
    this.quietMs = deps.quietMs ?? 400;
    this.maxWaitMs = deps.maxWaitMs ?? 4000;
  }

  /** Runs `command` on a new PTY and shows its first screen. */
  async run(owner: TerminalOwner, command: string): Promise<string> {
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
    await this.settle(term, since);
    return this.render(term);
  }

  /** Types `text` (key notation) and shows the screen after. */
  async keys(owner: TerminalOwner, text: string): Promise<string> {
    const term = this.byUser.get(owner.userId);
    if (!term) return NONE;
    const since = Date.now();
    if (!term.session.write(parseKeys(text)))
      return `${this.render(term)}\n❌ Nothing was typed: the program has ended. /term <command> starts another.`;
    await this.settle(term, since);
    return this.render(term);
  }

  async show(owner: TerminalOwner): Promise<string> {
    const term = this.byUser.get(owner.userId);
    if (!term) return NONE;
    await this.settle(term, Date.now() - this.quietMs);
    return this.render(term);
  }

  async close(owner: TerminalOwner): Promise<string> {
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

  private async start(owner: TerminalOwner, command: string): Promise<ChatTerminal> {
    // Loaded with the first chat terminal: a host that never shows one never parses xterm.
    const { HeadlessScreen } = await import("./headless-screen.ts");
    const session = await this.deps.manager.open({ owner, command, cols: this.cols, rows: this.rows });
    const screen = new HeadlessScreen(this.cols, this.rows, (answer) => session.reply(answer));
    const term: ChatTerminal = { session, screen, lastOutputAt: Date.now() };
    const draw = () => {
      for (let chunk = session.read(CHUNK_BYTES); chunk; chunk = session.read(CHUNK_BYTES)) {
        const bytes = utf8Bytes(chunk);
        term.lastOutputAt = Date.now();
        screen.write(chunk, () => session.ack(bytes));
      }
    };
    session.onReadable(draw);
    draw();
    void session.ended.then((end) => {
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

  /** Until the output has been quiet for quietMs (or the program ended) and the screen has drawn it; bounded. */
  private async settle(term: ChatTerminal, since: number): Promise<void> {
    const deadline = since + this.maxWaitMs;
    for (;;) {
      const now = Date.now();
      const drawn = term.session.queuedBytes === 0 && term.screen.settled;
      if (drawn && (term.session.end || now - Math.max(term.lastOutputAt, since) >= this.quietMs)) return;
      if (now >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(25, deadline - now)));
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
