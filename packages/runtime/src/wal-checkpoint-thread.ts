import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// A worker thread with a connection of its own to a database file, that runs its WAL checkpoints
// (see wal-checkpoints.ts, which decides when). A checkpoint fsyncs the WAL and the database file:
// 8–118 ms under load, during which the main thread used to run nothing else. WAL mode allows a
// checkpointer connection beside the writer, and a PASSIVE checkpoint never waits for the writer.
//
// The thread's code is a script given as text, not a file: the CLI ships as one esbuild bundle, and
// a script needs no second entry point. It loads better-sqlite3 from where this module resolves it
// (the repository's node_modules from source, the installed package's from the bundle).

export type CheckpointMode = "PASSIVE" | "TRUNCATE";

/** `PRAGMA wal_checkpoint`'s row: busy 1 when it could not finish, WAL frames, frames copied back. */
export interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface CheckpointResult {
  row: CheckpointRow;
  /** How long the checkpoint took on its thread. */
  ms: number;
}

/** The thread is gone (it failed to start, crashed, or was stopped): checkpoint elsewhere. */
export class CheckpointThreadGone extends Error {}

type Reply = { row: CheckpointRow; ms: number } | { error: string };

// busy_timeout 0: its lock waits would be free for the main thread, but a TRUNCATE that waits holds
// the write lock meanwhile and the main thread's next commit would wait behind it; busy, it is
// retried at the next idle tick instead. synchronous as the owner's: the checkpoint's fsyncs are
// what make the WAL safe to reuse.
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
db.pragma("synchronous = " + Number(workerData.synchronous));
db.pragma("wal_autocheckpoint = 0");
parentPort.on("message", (mode) => {
  if (mode !== "PASSIVE" && mode !== "TRUNCATE") {
    db.close();
    parentPort.close();
    return;
  }
  let reply;
  try {
    const started = performance.now();
    const [row] = db.pragma("wal_checkpoint(" + mode + ")");
    reply = { row: row ?? { busy: 0, log: 0, checkpointed: 0 }, ms: performance.now() - started };
  } catch (error) {
    reply = { error: String((error && error.message) || error) };
  }
  parentPort.postMessage(reply);
});
`;

export interface CheckpointThreadOptions {
  /** The database file (it must exist: the owner opened it in WAL mode). */
  path: string;
  /** The owner's `PRAGMA synchronous` (0–3). */
  synchronous: number;
  /** Called once if the thread ends without being closed, with why. */
  onGone: (reason: string) => void;
  /** better-sqlite3's entry file; the one this module resolves by default. */
  driverPath?: string;
}

export class CheckpointThread {
  private readonly worker: Worker;
  /** One entry per checkpoint asked for: the thread answers in order. */
  private readonly waiting: Array<{
    resolve: (result: CheckpointResult) => void;
    reject: (e: Error) => void;
  }> = [];
  private gone: string | undefined;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(private readonly options: CheckpointThreadOptions) {
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: {
        path: options.path,
        synchronous: options.synchronous,
        driver: options.driverPath ?? createRequire(import.meta.url).resolve("better-sqlite3"),
      },
      env: {}, // it reads no environment: no copy of the process's
    });
    this.worker.unref(); // a checkpoint never keeps the process alive
    let error = "";
    this.worker.on("error", (e) => {
      error = e.message;
    });
    this.worker.on("message", (reply: Reply) => this.answer(reply));
    this.exited = new Promise((resolve) => {
      this.worker.once("exit", (code) => {
        this.end(error || `exited with code ${code}`);
        resolve();
      });
    });
  }

  /** Runs one checkpoint on the thread; rejects with CheckpointThreadGone if the thread is gone. */
  checkpoint(mode: CheckpointMode): Promise<CheckpointResult> {
    if (this.gone !== undefined || this.closing) return Promise.reject(new CheckpointThreadGone(this.gone));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(mode);
    });
  }

  /**
   * Closes the thread's connection after the checkpoint under way (the owner's close is then the
   * last one, which checkpoints and removes the WAL); terminated if it takes longer than `timeoutMs`.
   */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.closing) return this.exited;
    this.closing = true;
    if (this.gone !== undefined) return;
    this.worker.ref(); // the process waits for the connection to close
    this.worker.postMessage("close");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), timeoutMs);
    });
    if ((await Promise.race([this.exited, late])) === "late") await this.worker.terminate();
    clearTimeout(timer);
    await this.exited;
  }

  private answer(reply: Reply): void {
    const waiter = this.waiting.shift();
    if (!waiter) return;
    if ("error" in reply) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply);
  }

  private end(reason: string): void {
    this.gone = reason;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new CheckpointThreadGone(reason));
    if (!this.closing) this.options.onGone(reason);
  }
}
