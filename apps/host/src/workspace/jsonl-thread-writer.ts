import type { Logger } from "@phonework/runtime";
import { atEndOfTurn } from "@phonework/runtime/end-of-turn";
import { DEFAULT_MAX_OPEN, JsonLinesAppender, jsonLines } from "./jsonl-appender.ts";
import type { ThreadFailure } from "./jsonl-thread.ts";
import { type JsonLinesThread, sharedJsonLinesThread } from "./jsonl-thread-client.ts";

// JSON Lines appended on a thread of their own (jsonl-thread.ts), for the channel log, written at
// every message: its stat and write were ~15 % of the main thread at 100 users in the round-trip
// bench. Lines are gathered here (one text per file, in the order appended) and handed over in ONE
// postMessage once COALESCE_MS has passed since the first line not yet handed over, or at the end
// of the turn in which the gathered text reached COALESCE_CHARS; the thread runs the same
// JsonLinesAppender (one stat per file per batch, the torn-line rule, private modes, at most
// maxOpen open) and answers only when a batch failed or someone waits. So the main thread pays
// one postMessage per COALESCE_MS (more only when a reader waits or lines are large), not a stat
// and a write per file. (Async fs calls per file on libuv's pool were tried first: each costs the
// main thread 12–46 µs in request setup and callbacks against ~7 µs synchronously; they lost at 10
// users. One postMessage per turn came next: at one user, where every message is its own turn, it
// was 5 % of the main thread and one wake-up of the thread, ~70 µs of its CPU, per message.)
// Why COALESCE_MS is 10 ms: the round-trip bench's one user makes ~800–1,200 turns a second, so
// 10 ms gathers ~8–12 of them: postMessage went from 5–9 % of the main thread's samples to ~2 %
// there, and the thread's CPU from one wake-up per message to one per 10 ms (a writer alone at
// ~830 turns a second: 8.5 times fewer batches, all threads' CPU per turn 204–269 → 121–129 µs).
// A longer wait would save at most that last ~2 %, less than the bench's noise, while it widens
// what a crash can lose and how stale the file looks to someone reading it without waiting (a
// `tail -f`). COALESCE_CHARS (64 Ki characters) bounds what is held and copied at once when lines
// are large (a 2 MB message is handed over at its turn's end).
// What that gives up: a line is no longer in the page cache when append returns, only once the
// thread has written its batch; a crash of the process (not a stop: `close` writes everything)
// can lose the lines gathered and not yet handed over: those appended within the last
// COALESCE_MS, or longer ago only while a turn holds the event loop past it (the timer runs
// between turns); plus, should the thread have fallen behind, the batches handed over that it had
// not written yet (it writes one in well under a millisecond). An exit without `close` loses the
// gathered lines too: the timer does not keep the process alive. And a failed write is reported
// (`onFailure`) a moment later instead of thrown to the appender.
// Readers in this process and the programs it starts (the model's tools, a coding session) never
// wait the extra delay: they await `flushed()` first (after-log-writes.ts), which hands over what
// is gathered at once.
// If the thread cannot start or dies, what it had not written, then what was gathered, and every
// later line are written on the main thread, in order, as before (said once, at error level).
// The thread is started only once the log is busy (BUSY_WRITES_PER_SECOND file writes within a
// second, a write being one file's lines of one turn: what costs the main thread a stat and a
// write here; counted per file, not per turn, as a busy host's turns are few and large): it costs
// ~15 MB of RSS and ~70 µs of its own CPU per wake-up, which a chat of a few messages a minute
// should not pay for a few µs a message. Until then each turn's lines are written here at the
// turn's end (the same batches, the same barrier for readers).

/** File writes (one file's lines of one turn) within one second from which the thread is started. */
export const BUSY_WRITES_PER_SECOND = 50;
/** On the thread: lines are handed over this long after the first of them not yet handed over. */
export const COALESCE_MS = 10;
/** On the thread: gathered text (in UTF-16 units) handed over at the end of the turn that reaches it. */
export const COALESCE_CHARS = 64 * 1024;

export interface ThreadWriterOptions {
  /** A write that failed (on the thread, or on the main thread once there is none). */
  onFailure: (path: string, error: Error) => void;
  logger: Logger;
  maxOpen?: number;
  /** The thread to write on (default: the process's, started at the first line). */
  thread?: () => JsonLinesThread;
  /** File writes within one second that start the thread (default BUSY_WRITES_PER_SECOND; 0: at once). */
  busyWritesPerSecond?: number;
  /** How long lines gather on the thread's side before they are handed over (default COALESCE_MS). */
  coalesceMs?: number;
}

export class ThreadedJsonLines {
  /** The lines not yet written or handed over, by file, in the order first appended to. */
  private pending = new Map<string, string>();
  /** Their length, counted only while they gather for the thread (COALESCE_CHARS). */
  private pendingChars = 0;
  private readonly endTurn = atEndOfTurn(() => this.turnEnded());
  /** Hands the gathered lines over COALESCE_MS after the first; unref'd, cleared when they go. */
  private handOverTimer: NodeJS.Timeout | undefined;
  private readonly handOver = () => {
    this.handOverTimer = undefined;
    this.send();
  };
  private thread: JsonLinesThread | undefined;
  private writer = 0;
  /** The number of this writer's last batch handed over. */
  private lastSent = 0;
  /** Batches handed over and not yet known written: written here instead if the thread dies. */
  private unwritten: Array<{ seq: number; appends: string[] }> = [];
  /** The last wait asked of the thread: a later one resolves after it, never before. */
  private lastWait: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private batches = 0;
  /** Where lines go when there is no thread (it could not start, it died, or this writer closed). */
  private direct: JsonLinesAppender | undefined;
  /** Where each turn's lines go while the log is not busy enough for the thread. */
  private quiet: JsonLinesAppender | undefined;
  private windowStart = Number.NEGATIVE_INFINITY;
  private windowWrites = 0;

  constructor(private readonly options: ThreadWriterOptions) {}

  /**
   * Appends one JSON value per line, written at the end of this turn (quiet) or within COALESCE_MS
   * (on the thread); never throws.
   */
  append(path: string, values: readonly unknown[]): void {
    if (values.length === 0) return;
    const text = jsonLines(values);
    if (this.direct && !this.closing) {
      this.writeDirect(path, text);
      return;
    }
    const before = this.pending.get(path);
    this.pending.set(path, before === undefined ? text : before + text);
    if (this.closing) return; // written once the thread has closed the writer's files
    if (!this.thread?.alive) {
      this.endTurn(); // quiet: written (or the thread started) at the turn's end
      return;
    }
    this.pendingChars += text.length;
    if (this.pendingChars >= COALESCE_CHARS) this.endTurn();
    else if (!this.handOverTimer) {
      this.handOverTimer = setTimeout(this.handOver, this.options.coalesceMs ?? COALESCE_MS);
      this.handOverTimer.unref();
    }
  }

  /** Resolves once every line appended before this call is written (or has failed and been reported). */
  flushed(): Promise<void> {
    if (this.closing) return this.closing;
    this.send();
    const thread = this.thread;
    if (!thread?.alive || thread.done(this.lastSent)) return this.lastWait ?? Promise.resolve();
    // Kept once settled too: returned again, it resolves at once, as a new resolved promise would.
    this.lastWait = thread.ping();
    return this.lastWait;
  }

  /**
   * Writes everything appended so far and closes this writer's files (the host is stopping).
   * Lines appended after this still land: on the main thread, each opening and closing its file.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnThread();
    return this.closing;
  }

  /** How many batches this writer handed over (for tests: one per hand-over with lines). */
  get batchesSent(): number {
    return this.batches;
  }

  private async closeOnThread(): Promise<void> {
    this.send(true);
    this.quiet?.close();
    if (this.thread?.alive) await this.thread.close(this.writer);
    this.directAppender().close(); // from now on each line opens and closes its file
    for (const [path, text] of this.take()) this.writeDirect(path, text);
    this.unwritten = [];
    this.closing = undefined;
  }

  /**
   * Hands the lines gathered to the thread (the process's, started at the first line of all); a
   * writer closing before it has a thread writes them itself (a thread is not started to stop).
   */
  private send(closing = false): void {
    if (this.pending.size === 0 || (this.closing && !closing)) return;
    if (!this.thread && !this.direct && (closing || !this.busy())) {
      this.quiet ??= new JsonLinesAppender(this.options.maxOpen);
      this.writeAll(this.quiet);
      return;
    }
    const thread = this.direct ? undefined : this.connect();
    if (!thread) {
      this.writeAll(this.directAppender());
      return;
    }
    // From now on the thread's appender is the files' only one here: close ours (its fds, its knowledge).
    this.quiet?.close();
    this.quiet = undefined;
    const appends: string[] = [];
    for (const [path, text] of this.take()) appends.push(path, text);
    const written = thread.lastWritten;
    while ((this.unwritten[0]?.seq ?? Number.POSITIVE_INFINITY) <= written) this.unwritten.shift();
    this.lastSent = thread.post(this.writer, this.options.maxOpen ?? DEFAULT_MAX_OPEN, appends);
    this.unwritten.push({ seq: this.lastSent, appends });
    this.batches++;
  }

  /**
   * Quiet, the turn's lines are written (or the thread started) now; on the thread, only lines past
   * COALESCE_CHARS go now, the rest at their window's end (a turn's end asked for before the thread
   * took over, or before a `flushed()`, must not hand over the lines gathered since).
   */
  private turnEnded(): void {
    if (this.thread?.alive && this.handOverTimer && this.pendingChars < COALESCE_CHARS) return;
    this.send();
  }

  /** Whether this turn's writes make the log busy enough for the thread (one per file it writes). */
  private busy(): boolean {
    const now = performance.now();
    if (now - this.windowStart > 1000) {
      this.windowStart = now;
      this.windowWrites = 0;
    }
    this.windowWrites += this.pending.size;
    return this.windowWrites >= (this.options.busyWritesPerSecond ?? BUSY_WRITES_PER_SECOND);
  }

  /** Writes the lines not yet handed over on the main thread with `appender`. */
  private writeAll(appender: JsonLinesAppender): void {
    for (const [path, text] of this.take()) this.writeWith(appender, path, text);
  }

  /** The lines not yet handed over, taken: nothing is gathered any more, no hand-over is due. */
  private take(): Map<string, string> {
    const lines = this.pending;
    this.pending = new Map();
    this.pendingChars = 0;
    if (this.handOverTimer) {
      clearTimeout(this.handOverTimer);
      this.handOverTimer = undefined;
    }
    return lines;
  }

  /** The thread, registered with at the first batch; undefined when none can start. */
  private connect(): JsonLinesThread | undefined {
    if (this.thread?.alive) return this.thread;
    try {
      this.thread = (this.options.thread ?? sharedJsonLinesThread)();
    } catch (error) {
      this.gone(error as Error, 0);
      return undefined;
    }
    this.writer = this.thread.register({
      failed: (failure) => this.failed(failure),
      gone: (error, written) => this.gone(error, written),
    });
    return this.thread;
  }

  private failed({ path, message, code }: ThreadFailure): void {
    const error: NodeJS.ErrnoException = new Error(message);
    if (code) error.code = code;
    this.options.onFailure(path, error);
  }

  /**
   * The thread is gone (it could not start, or died): the batches it had not finished are written
   * here, then the lines gathered and not yet handed over (a line appended from now on is written
   * at once: it must come after them), and every later line too. (A thread that died in the middle of
   * a batch, which only a crash of the thread itself can do, may have written part of it: those
   * lines would be twice.)
   */
  private gone(error: Error, written: number): void {
    const unwritten = this.unwritten.filter((batch) => batch.seq > written);
    this.unwritten = [];
    this.options.logger.error(
      { err: error, unwrittenBatches: unwritten.length },
      "the channel log's thread ended; writing the log on the main thread from now on",
    );
    for (const { appends } of unwritten)
      for (let i = 0; i + 1 < appends.length; i += 2)
        this.writeDirect(appends[i] as string, appends[i + 1] as string);
    this.writeAll(this.directAppender());
  }

  /** The main thread's appender once there is no thread (made at the first need, with the writer's maxOpen). */
  private directAppender(): JsonLinesAppender {
    this.direct ??= new JsonLinesAppender(this.options.maxOpen);
    return this.direct;
  }

  private writeDirect(path: string, text: string): void {
    this.writeWith(this.directAppender(), path, text);
  }

  private writeWith(appender: JsonLinesAppender, path: string, text: string): void {
    try {
      appender.appendLines(path, text);
    } catch (error) {
      this.options.onFailure(path, error as Error);
    }
  }
}
