import { Worker } from "node:worker_threads";
import type { FromThread, ThreadData, ThreadFailure, ToThread } from "./jsonl-thread.ts";

// The main thread's end of the channel logs' thread (jsonl-thread.ts): one per process, shared by
// every writer in it (a standalone's host, the hosts a test starts), as a thread costs ~15 MB of
// RSS and 60–120 ms of CPU to start. It is started by the first line any writer hands over (an
// idle host has none), never keeps the process alive by itself (only while someone waits for
// it), and stays once started. If it cannot start or dies, its writers are told and write on the
// main thread; the next writer to ask gets a new one.

export interface ThreadWriterLink {
  /** A write of this writer's failed on the thread. */
  failed(failure: ThreadFailure): void;
  /** The thread is gone: `written` is the last batch it finished. */
  gone(error: Error, written: number): void;
}

export class JsonLinesThread {
  private readonly worker: Worker;
  private readonly written: BigInt64Array;
  private seq: number;
  private ids = 0;
  private writers = 0;
  private readonly links = new Map<number, ThreadWriterLink>();
  /** Pings and closes waiting for their `done`, in the order sent (the thread answers in order). */
  private readonly waiting: Array<{ id: number; resolve: () => void }> = [];
  private ended: Error | undefined;
  /** `failed` messages received (the thread counts those it posted). */
  private reportsHeard = 0;

  /** `firstSeq`: the number its first batch follows (tests: a thread past 2^31 batches). */
  constructor({ firstSeq = 0 }: { firstSeq?: number } = {}) {
    this.seq = firstSeq;
    const shared = new SharedArrayBuffer(16);
    this.written = new BigInt64Array(shared);
    this.written[0] = BigInt(firstSeq);
    const data: ThreadData = { written: shared };
    this.worker = new Worker(threadEntry(), {
      workerData: { jsonlThread: data },
      execArgv: [],
      env: {}, // it reads no environment: no copy of the process's
    });
    this.worker.unref();
    let failure: Error | undefined;
    this.worker.on("error", (error) => {
      failure = error;
    });
    this.worker.on("message", (message: FromThread) => this.answer(message));
    this.worker.once("exit", (code) => this.end(failure ?? new Error(`exited with code ${code}`)));
  }

  /** Whether it still runs (a new writer asks for another one if not). */
  get alive(): boolean {
    return this.ended === undefined;
  }

  /** The last batch (of any writer) the thread has written. */
  get lastWritten(): number {
    return Number(Atomics.load(this.written, 0));
  }

  /** Whether batch `seq` is written and any failure of it already told (no need to ask the thread). */
  done(seq: number): boolean {
    return this.lastWritten >= seq && Number(Atomics.load(this.written, 1)) === this.reportsHeard;
  }

  /** A new writer's number; `link` hears its failures and the thread's end. */
  register(link: ThreadWriterLink): number {
    const writer = ++this.writers;
    this.links.set(writer, link);
    return writer;
  }

  /** Hands a batch over; its number (what `lastWritten` reaches once it is written). */
  post(writer: number, maxOpen: number, appends: string[]): number {
    const seq = ++this.seq;
    this.worker.postMessage({ op: "batch", writer, maxOpen, seq, appends } satisfies ToThread);
    return seq;
  }

  /** Resolves once everything handed over before is written (at once if the thread is gone). */
  ping(): Promise<void> {
    const id = ++this.ids;
    return this.ask({ op: "ping", id }, id);
  }

  /** Closes the writer's files on the thread, after its batches; it hears nothing more. */
  async close(writer: number): Promise<void> {
    const id = ++this.ids;
    await this.ask({ op: "close", writer, id }, id);
    this.links.delete(writer);
  }

  /** Ends the thread (tests of its death). */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private ask(message: ToThread, id: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    if (this.waiting.length === 0) this.worker.ref(); // someone waits: the process stays for the answer
    const done = new Promise<void>((resolve) => this.waiting.push({ id, resolve }));
    this.worker.postMessage(message);
    return done;
  }

  private answer(message: FromThread): void {
    if (message.op === "failed") {
      this.reportsHeard++;
      const link = this.links.get(message.writer);
      for (const failure of message.failures) link?.failed(failure);
    } else this.release(message.id);
  }

  private release(id: number): void {
    while (this.waiting.length > 0 && (this.waiting[0]?.id ?? 0) <= id) this.waiting.shift()?.resolve();
    if (this.waiting.length === 0) this.worker.unref();
  }

  private end(error: Error): void {
    this.ended = error;
    if (shared === this) shared = undefined;
    const written = this.lastWritten;
    for (const link of this.links.values()) link.gone(error, written);
    this.links.clear();
    this.release(Number.POSITIVE_INFINITY);
  }
}

let shared: JsonLinesThread | undefined;

/** The process's channel-log thread, started on the first call (again after one died). */
export function sharedJsonLinesThread(): JsonLinesThread {
  shared ??= new JsonLinesThread();
  return shared;
}

/** The thread's entry: beside this file in source (Node strips its types), jsonl-thread.js in the bundle. */
function threadEntry(): URL {
  const fromSource = import.meta.url.endsWith(".ts");
  return new URL(fromSource ? "./jsonl-thread.ts" : "./jsonl-thread.js", import.meta.url);
}
