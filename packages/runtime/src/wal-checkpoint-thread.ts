import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// A worker thread that runs WAL checkpoints (see wal-checkpoints.ts, which decides when and where)
// for every database of the process that asks (the standalone has router.db and state.db): one
// connection of its own per file, opened on the file's first request. A checkpoint fsyncs the WAL
// and the database file: 8–118 ms under load, during which the main thread used to run nothing else.
// WAL mode allows a checkpointer connection beside the writer, and a PASSIVE checkpoint never waits
// for the writer.
//
// A thread costs 15–18 MB of RSS (about 11 MB of which stays after it exits), so a process starts at
// most one (`sharedCheckpointThread()`), and only once a database is under write load.
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

/** What a checkpoint that returned no row reports: nothing in the WAL, nothing copied. */
export const EMPTY_CHECKPOINT: CheckpointRow = { busy: 0, log: 0, checkpointed: 0 };

/** The thread is gone (it failed to start, crashed, or was closed): checkpoint elsewhere. */
export class CheckpointThreadGone extends Error {}

/** One database file: its path and the owner's `PRAGMA synchronous` (0–3). */
export interface CheckpointFile {
  path: string;
  synchronous: number;
}

type Request =
  | { op: "checkpoint"; path: string; synchronous: number; mode: CheckpointMode }
  | { op: "release"; path: string };
type Reply = { row?: CheckpointRow } | { error: string };

// busy_timeout 0: its lock waits would be free for the main thread, but a TRUNCATE that waits holds
// the write lock meanwhile and the main thread's next commit would wait behind it; busy, it is
// retried at the next idle tick instead. synchronous as the owner's: the checkpoint's fsyncs are
// what make the WAL safe to reuse. A driver that cannot load ends the thread (its users then
// checkpoint on their own thread).
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const connections = new Map();
function connection(request) {
  let db = connections.get(request.path);
  if (!db) {
    db = new Database(request.path, { fileMustExist: true, timeout: 0 });
    db.pragma("synchronous = " + Number(request.synchronous));
    db.pragma("wal_autocheckpoint = 0");
    connections.set(request.path, db);
  }
  return db;
}
parentPort.on("message", (request) => {
  let reply;
  try {
    if (request.op === "release") {
      connections.get(request.path)?.close();
      connections.delete(request.path);
      reply = {};
    } else {
      const mode = request.mode === "TRUNCATE" ? "TRUNCATE" : "PASSIVE";
      const [row] = connection(request).pragma("wal_checkpoint(" + mode + ")");
      reply = { row };
    }
  } catch (error) {
    reply = { error: String((error && error.message) || error) };
  }
  parentPort.postMessage(reply);
});
`;

export interface CheckpointThreadOptions {
  /** better-sqlite3's entry file; the one this module resolves by default. */
  driverPath?: string;
}

export class CheckpointThread {
  private readonly worker: Worker;
  /** One entry per request: the thread answers in order. */
  private readonly waiting: Array<{ resolve: (reply: Reply) => void; reject: (e: Error) => void }> = [];
  private readonly goneListeners = new Set<(reason: string) => void>();
  private gone: string | undefined;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(options: CheckpointThreadOptions = {}) {
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { driver: options.driverPath ?? createRequire(import.meta.url).resolve("better-sqlite3") },
      env: {}, // it reads no environment: no copy of the process's
    });
    // Idle, it never keeps the process alive; while a request is under way it does (a database's
    // owner waits for its connection there to close before closing its own).
    this.worker.unref();
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

  /** Runs one checkpoint of `file` on the thread; rejects with CheckpointThreadGone if the thread is gone. */
  async checkpoint(file: CheckpointFile, mode: CheckpointMode): Promise<CheckpointRow> {
    const reply = await this.request({
      op: "checkpoint",
      path: file.path,
      synchronous: file.synchronous,
      mode,
    });
    return reply.row ?? EMPTY_CHECKPOINT;
  }

  /**
   * Closes the thread's connection to `path` (the owner's close is then the last one, which
   * checkpoints and removes the WAL); gives up after `timeoutMs`. Never rejects.
   */
  async release(path: string, timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.request({ op: "release", path }).catch(() => undefined), late]);
    clearTimeout(timer);
  }

  /** Calls `listener` once with why, if the thread ends without being closed. */
  onGone(listener: (reason: string) => void): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  /** Ends the thread and every connection in it (a doctor check, a test). */
  async close(): Promise<void> {
    this.closing = true;
    await this.worker.terminate();
    await this.exited;
  }

  private request(request: Request): Promise<{ row?: CheckpointRow }> {
    if (this.gone !== undefined || this.closing) return Promise.reject(new CheckpointThreadGone(this.gone));
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) this.worker.ref();
      this.waiting.push({
        resolve: (reply) => ("error" in reply ? reject(new Error(reply.error)) : resolve(reply)),
        reject,
      });
      this.worker.postMessage(request);
    });
  }

  private answer(reply: Reply): void {
    const waiter = this.waiting.shift();
    if (this.waiting.length === 0) this.worker.unref();
    waiter?.resolve(reply);
  }

  private end(reason: string): void {
    this.gone = reason;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new CheckpointThreadGone(reason));
    if (!this.closing) for (const listener of this.goneListeners) listener(reason);
    this.goneListeners.clear();
  }
}

let shared: CheckpointThread | undefined;

/**
 * The process's one checkpoint thread, started on the first call; it stays (its memory would not
 * come back anyway). If it fails to start or dies, its users checkpoint on their own thread.
 */
export function sharedCheckpointThread(): CheckpointThread {
  shared ??= new CheckpointThread();
  return shared;
}
