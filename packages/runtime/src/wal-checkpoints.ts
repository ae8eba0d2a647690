import type { Logger } from "./logger.ts";
import type { SqliteDatabase } from "./sqlite.ts";
import {
  type CheckpointFile,
  type CheckpointMode,
  type CheckpointRow,
  CheckpointThread,
  CheckpointThreadGone,
  EMPTY_CHECKPOINT,
  sharedCheckpointThread,
} from "./wal-checkpoint-thread.ts";

// A database's WAL checkpoints on a schedule (router.db and the host's state.db). SQLite's default
// copies the WAL back into the database file from inside whichever commit pushes the WAL past 1,000
// pages: that commit, and the message waiting on it, pays a checkpoint (the database file's fsync on
// top of the commit's), which was the forwarded p99 on both sides. Here autocheckpoint is off and a
// timer runs a PASSIVE checkpoint (never waits for a reader or writer) every interval while there are
// writes, and a TRUNCATE one (the WAL file back to 0 bytes) once a whole interval passed without any.
//
// Where they run: on this thread until the database is under write load, then on the process's one
// checkpoint thread (wal-checkpoint-thread.ts). Under sustained load at one user, checkpoints here
// held the main thread 661–753 ms per 10 s (the longest stall 77–101 ms, the message waiting behind
// it); on the thread, 89–162 ms (longest 12–33 ms). But the thread costs 15–18 MB of RSS, which an
// idle or lightly used program should not pay (router 94 → 107 MiB idle). The rule: the thread
// starts once a tick's checkpoint here finds at least `startWorkerAtFrames` (1,000) new WAL frames,
// i.e. once SQLite itself would have checkpointed inside a commit; a sustained one-user load writes
// about 8,000 a second, a chat message now and then a few. Once started it stays (its memory would
// not come back), and this thread then copies only the few frames committed while it worked (the
// tail), so the next commit starts the WAL over. If the thread fails or dies, this one logs it once
// and checkpoints here again.

export interface WalCheckpointOptions {
  intervalMs?: number;
  logger: Logger;
  /** Where checkpoints run: the worker thread once under load (the default for a file) or always this one. */
  thread?: "worker" | "main";
  /** New WAL frames in one tick that start the worker thread (default 1,000, SQLite's autocheckpoint). */
  startWorkerAtFrames?: number;
  /** The worker thread to use once under load; the process's shared one by default. */
  worker?: () => CheckpointThread;
}

export class WalCheckpoints {
  private readonly timer: NodeJS.Timeout;
  /** WAL frames at the last tick; unchanged over a tick means no writes since (idle). */
  private lastLog = -1;
  private truncated = false;
  /** Not under load yet (here); the worker once it is; "main" for good (asked for, or the worker failed). */
  private thread: CheckpointThread | "main" | undefined;
  private unsubscribe: (() => void) | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  /** Checkpoints run, those run on this thread, and the worker's PASSIVE ones finished here (tails). */
  readonly stats = { passive: 0, truncate: 0, onMainThread: 0, tails: 0 };
  /** The file as the worker opens it; its synchronous setting is the owner's, fixed at open. */
  private readonly file: CheckpointFile;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: WalCheckpointOptions,
  ) {
    db.pragma("wal_autocheckpoint = 0");
    if (options.thread === "main" || db.memory) this.thread = "main";
    this.file = { path: db.name, synchronous: Number(db.pragma("synchronous", { simple: true })) };
    this.timer = setInterval(() => void this.tick(), options.intervalMs ?? 1000).unref();
  }

  /** Whether checkpoints run on the worker thread now. */
  get onWorker(): boolean {
    return this.thread instanceof CheckpointThread;
  }

  /** One tick: PASSIVE while there are writes, TRUNCATE once idle. Never rejects; one at a time. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** Stops the timer and closes the worker's connection to the file; the owner closes the database after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    this.unsubscribe?.();
    if (this.thread instanceof CheckpointThread) await this.thread.release(this.db.name);
  }

  private async runTick(): Promise<void> {
    try {
      const onWorker = this.onWorker;
      const bulk = await this.checkpoint("PASSIVE");
      // The tail: what was committed while the worker copied. A commit starts the WAL over only
      // when every frame in it was copied back; under steady writes the worker never catches up (the
      // WAL grew to 82,000 frames in 10 s at one user), so this thread copies the few frames left.
      const passive = bulk && onWorker && this.onWorker ? this.tail() : bulk;
      if (!passive) return;
      const idle = passive.log === this.lastLog;
      // Checked here, the WAL restarts after each checkpoint that copied it all: its frames are
      // those written since the last tick.
      if (!idle && this.thread === undefined && passive.log >= (this.options.startWorkerAtFrames ?? 1000))
        this.startWorker();
      this.lastLog = passive.log;
      if (passive.log > 0) this.truncated = false;
      if (idle && !this.truncated && passive.busy === 0) {
        const truncate = await this.checkpoint("TRUNCATE");
        // Busy (a commit under way): the next idle tick tries again.
        if (truncate?.busy === 0) {
          this.truncated = true;
          this.lastLog = 0;
        }
      }
    } catch (error) {
      this.options.logger.warn({ err: (error as Error).message }, "WAL checkpoint failed; retried next tick");
    }
  }

  /** Runs one checkpoint where checkpoints run now; undefined once stopped. */
  private async checkpoint(mode: CheckpointMode): Promise<CheckpointRow | undefined> {
    if (this.stopped) return undefined;
    let result: CheckpointRow | undefined;
    if (this.thread instanceof CheckpointThread)
      result = await this.thread.checkpoint(this.file, mode).catch((error) => this.gone(error));
    if (!result) {
      // Not on the worker (not started, or gone: this checkpoint falls back too), unless stopped meanwhile.
      if (this.stopped) return undefined;
      result = this.here(mode);
      this.stats.onMainThread++;
    }
    if (mode === "PASSIVE") this.stats.passive++;
    else this.stats.truncate++;
    return result;
  }

  private tail(): CheckpointRow | undefined {
    if (this.stopped) return undefined;
    this.stats.tails++;
    return this.here("PASSIVE");
  }

  private startWorker(): void {
    try {
      const thread = (this.options.worker ?? sharedCheckpointThread)();
      this.thread = thread;
      this.unsubscribe = thread.onGone((reason) => this.fallBack(reason));
    } catch (error) {
      this.fallBack((error as Error).message);
    }
  }

  /** A worker that is gone answers undefined (checkpoint here, from now on); other failures stay failures. */
  private gone(error: unknown): undefined {
    if (!(error instanceof CheckpointThreadGone)) throw error;
    this.fallBack(error.message || "the checkpoint thread is gone");
    return undefined;
  }

  private fallBack(reason: string): void {
    if (this.thread === "main") return;
    this.thread = "main";
    this.unsubscribe?.();
    this.options.logger.warn({ reason }, "WAL checkpoint thread stopped; checkpointing on the main thread");
  }

  private here(mode: CheckpointMode): CheckpointRow {
    const [row] = this.db.pragma(`wal_checkpoint(${mode})`) as CheckpointRow[];
    return row ?? EMPTY_CHECKPOINT;
  }
}
