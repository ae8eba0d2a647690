import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { atEndOfTurn, type Logger } from "@phonework/runtime";
import { JsonLinesAppender, jsonLine } from "./jsonl-appender.ts";
import type { FromThread, ThreadData, ThreadFailure, ToThread } from "./jsonl-thread.ts";

// JSON Lines appended on a thread of their own (jsonl-thread.ts), for the channel log, written at
// every message: its stat and write were ~15 % of the main thread at 100 users in the round-trip
// bench. A turn's lines are gathered here (one text per file, in the order appended) and handed
// over at the turn's end in ONE postMessage; the thread runs the same JsonLinesAppender (one stat
// per file per batch, the torn-line rule, private modes, at most maxOpen open) and answers only
// when a batch failed or a `flushed()` asked. So the main thread pays one postMessage per turn, not
// a stat and a write per file. (Async fs calls per file on libuv's pool were tried first: each costs
// the main thread 12–46 µs in request setup and callbacks against ~7 µs synchronously; lost at 10
// users.)
// What that gives up: a line is no longer in the page cache when append returns, only by the end
// of the turn's batch on the thread; a process crash (not a stop: `close` writes everything) can
// lose the lines handed over but not yet written, at most about one turn's. And a failed write is
// reported (`onFailure`) a moment later, not thrown to the appender.
// Readers in this process and the programs it starts (the model's tools, a coding session) see
// the lines because they await `flushed()` first (workspace/after-log-writes.ts).
// The thread starts at the first line (an idle host has none: a thread costs ~15 MB of RSS), never
// keeps the process alive by itself, and ends at `close`. If it cannot start or dies, lines are
// written on the main thread from then on, as before (said once at error level).

export interface ThreadWriterOptions {
  /** A write that failed on the thread (or on the main thread once the thread is gone). */
  onFailure: (path: string, error: Error) => void;
  logger: Logger;
  maxOpen?: number;
}

/** Whether this module runs from TypeScript source (tsx, vitest) rather than from the bundle. */
const fromSource = import.meta.url.endsWith(".ts");

/** How long `close` waits for the thread to write what it was given before ending it. */
const CLOSE_WAIT_MS = 10_000;

export class ThreadedJsonLines {
  /** This turn's lines by file, in the order first appended to. */
  private pending = new Map<string, string>();
  private readonly endTurn = atEndOfTurn(() => this.send());
  private worker: Worker | undefined;
  /** [0]: the last batch the thread has written. */
  private written: Int32Array<ArrayBufferLike> = new Int32Array(1);
  private sent = 0;
  /** Batches handed over and not yet known written: written here instead if the thread dies. */
  private unwritten: Array<{ seq: number; appends: string[] }> = [];
  private pings = 0;
  private readonly waiting: Array<{ id: number; resolve: () => void }> = [];
  private closing: Promise<void> | undefined;
  /** Where lines go when there is no thread (it could not start, it died, or it was closed). */
  private direct: JsonLinesAppender | undefined;

  constructor(private readonly options: ThreadWriterOptions) {}

  /** Appends one JSON value per line, written at the end of this turn on the thread; never throws. */
  append(path: string, values: readonly unknown[]): void {
    if (values.length === 0) return;
    let text = "";
    for (const value of values) text += jsonLine(value);
    if (this.direct && !this.closing) {
      this.writeDirect(path, text);
      return;
    }
    const before = this.pending.get(path);
    this.pending.set(path, before === undefined ? text : before + text);
    if (!this.closing) this.endTurn();
  }

  /** Resolves once every line appended before this call is written (or has failed and been reported). */
  flushed(): Promise<void> {
    if (this.closing) return this.closing;
    this.send();
    const worker = this.worker;
    // Waiters are answered in the order they asked (one waiting already: this one waits behind it).
    if (!worker || (this.waiting.length === 0 && Atomics.load(this.written, 0) === this.sent))
      return Promise.resolve();
    const id = ++this.pings;
    if (this.waiting.length === 0) worker.ref(); // a reader waits: the process stays for the answer
    const done = new Promise<void>((resolve) => this.waiting.push({ id, resolve }));
    worker.postMessage({ op: "ping", id } satisfies ToThread);
    return done;
  }

  /**
   * Writes everything appended so far, closes the files and ends the thread (the host is stopping).
   * Lines appended after this still land: on the main thread, each opening and closing its file.
   */
  close(): Promise<void> {
    this.closing ??= this.closeThread();
    return this.closing;
  }

  /** How many batches were handed to the thread (for tests: one per turn with lines). */
  get batchesSent(): number {
    return this.sent;
  }

  /** Whether the thread is running (for tests: none before the first line, none after close). */
  get threadRunning(): boolean {
    return this.worker !== undefined;
  }

  private async closeThread(): Promise<void> {
    this.send(true);
    const worker = this.worker;
    if (worker) {
      worker.ref();
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage({ op: "close" } satisfies ToThread);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), CLOSE_WAIT_MS);
      });
      if ((await Promise.race([exited, late])) === "late") {
        this.options.logger.error("the channel log's thread did not finish writing in time; ended");
        await worker.terminate();
      }
      clearTimeout(timer);
    }
    this.direct ??= new JsonLinesAppender();
    this.direct.close(); // from now on each line opens and closes its file
    const lines = this.pending;
    this.pending = new Map();
    for (const [path, text] of lines) this.writeDirect(path, text);
    this.closing = undefined;
  }

  /** Hands this turn's lines to the thread (started at the first). */
  private send(closing = false): void {
    if (this.pending.size === 0 || (this.closing && !closing)) return;
    const worker = this.worker ?? (this.direct ? undefined : this.start());
    if (!worker) {
      const lines = this.pending;
      this.pending = new Map();
      for (const [path, text] of lines) this.writeDirect(path, text);
      return;
    }
    const appends: string[] = [];
    for (const [path, text] of this.pending) appends.push(path, text);
    this.pending = new Map();
    const seq = ++this.sent;
    const written = Atomics.load(this.written, 0);
    while ((this.unwritten[0]?.seq ?? Number.POSITIVE_INFINITY) <= written) this.unwritten.shift();
    this.unwritten.push({ seq, appends });
    worker.postMessage({ op: "batch", seq, appends } satisfies ToThread);
  }

  private start(): Worker | undefined {
    const shared = new SharedArrayBuffer(4);
    const data: ThreadData = { maxOpen: this.options.maxOpen ?? 128, written: shared };
    let worker: Worker;
    try {
      worker = new Worker(threadEntry(), {
        workerData: { jsonlThread: data },
        execArgv: fromSource ? ["--import", createRequire(import.meta.url).resolve("tsx")] : [],
        env: {}, // it reads no environment: no copy of the process's
      });
    } catch (error) {
      this.gone(error as Error);
      return undefined;
    }
    worker.unref();
    this.written = new Int32Array(shared);
    this.worker = worker;
    let failure: Error | undefined;
    worker.on("error", (error) => {
      failure = error;
    });
    worker.on("message", (message: FromThread) => this.answer(message));
    worker.once("exit", (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (!this.closing) this.gone(failure ?? new Error(`exited with code ${code}`));
      this.release(Number.POSITIVE_INFINITY);
    });
    return worker;
  }

  private answer(message: FromThread): void {
    if (message.op === "failed") for (const failure of message.failures) this.failed(failure);
    else if (message.op === "done") this.release(message.id);
  }

  /** Resolves the `flushed()` calls answered by ping `id`. */
  private release(id: number): void {
    while (this.waiting.length > 0 && (this.waiting[0]?.id ?? 0) <= id) this.waiting.shift()?.resolve();
    if (this.waiting.length === 0) this.worker?.unref();
  }

  private failed({ path, message, code }: ThreadFailure): void {
    const error: NodeJS.ErrnoException = new Error(message);
    if (code) error.code = code;
    this.options.onFailure(path, error);
  }

  /**
   * The thread is gone (it could not start, or died): the batches it had not finished are written
   * here, and every later line too. (A thread that died in the middle of a batch, which only a
   * crash of the thread itself can do, may have written part of it: those lines would be twice.)
   */
  private gone(error: Error): void {
    const written = Atomics.load(this.written, 0);
    const unwritten = this.unwritten.filter((batch) => batch.seq > written);
    this.unwritten = [];
    this.options.logger.error(
      { err: error, unwrittenBatches: unwritten.length },
      "the channel log's thread ended; writing the log on the main thread from now on",
    );
    this.direct ??= new JsonLinesAppender();
    for (const { appends } of unwritten)
      for (let i = 0; i + 1 < appends.length; i += 2)
        this.writeDirect(appends[i] as string, appends[i + 1] as string);
  }

  private writeDirect(path: string, text: string): void {
    this.direct ??= new JsonLinesAppender();
    try {
      this.direct.appendLines(path, text);
    } catch (error) {
      this.options.onFailure(path, error as Error);
    }
  }
}

/** The thread's entry: beside this file in source, the bundle's `jsonl-thread.js` in the package. */
function threadEntry(): URL {
  return new URL(fromSource ? "./jsonl-thread.ts" : "./jsonl-thread.js", import.meta.url);
}
