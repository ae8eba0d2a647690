import type { Logger } from "./logger.ts";
import type { SqliteDatabase } from "./sqlite.ts";
import {
  type CheckpointMode,
  type CheckpointResult,
  CheckpointThread,
  CheckpointThreadGone,
} from "./wal-checkpoint-thread.ts";

// A database's WAL checkpoints on a schedule, off the main thread (router.db and the host's
// state.db). SQLite's default copies the WAL back into the database file from inside whichever commit
// pushes the WAL past 1,000 pages: that commit, and the message waiting on it, pays a checkpoint (the
// database file's fsync on top of the commit's), which was the forwarded p99 on both sides. Here
// autocheckpoint is off and a timer runs a PASSIVE checkpoint (never waits for a reader or writer)
// every interval while there are writes, and a TRUNCATE one (the WAL file back to 0 bytes) once a
// whole interval passed without any.
// Run on this thread, a checkpoint's fsyncs (8–118 ms under load) still held every message in that
// window, so the bulk of each runs on a thread of their own (wal-checkpoint-thread.ts), started at the
// first tick (off the start-up path); this thread then copies the few frames committed meanwhile, so
// the next commit starts the WAL over. If that thread fails or dies, this one logs it once and
// checkpoints here.

export interface WalCheckpointOptions {
  intervalMs?: number;
  logger: Logger;
  /** Where checkpoints run: a worker thread (the default for a file) or this one (always in memory). */
  thread?: "worker" | "main";
  /** better-sqlite3's entry file for the worker; the one the runtime resolves by default. */
  driverPath?: string;
}

export class WalCheckpoints {
  private readonly timer: NodeJS.Timeout;
  /** WAL frames at the last tick; unchanged over a tick means no writes since (idle). */
  private lastLog = -1;
  private truncated = false;
  /** The worker while it runs; "main" once checkpoints run here (asked for, or it failed). */
  private thread: CheckpointThread | "main" | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  /**
   * Checkpoints run, those run on this thread instead of the worker, the slowest one's milliseconds;
   * the worker's PASSIVE checkpoints finished here (tails) and the slowest of those (the bench reads them).
   */
  readonly stats = { passive: 0, truncate: 0, onMainThread: 0, slowestMs: 0, tails: 0, slowestTailMs: 0 };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: WalCheckpointOptions,
  ) {
    db.pragma("wal_autocheckpoint = 0");
    if (options.thread === "main" || db.memory) this.thread = "main";
    this.timer = setInterval(() => void this.tick(), options.intervalMs ?? 1000).unref();
  }

  /** One tick: PASSIVE while there are writes, TRUNCATE once idle. Never rejects; one at a time. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** Stops the timer and closes the worker's connection; the owner closes the database after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    if (this.thread instanceof CheckpointThread) await this.thread.close();
  }

  private async runTick(): Promise<void> {
    try {
      const bulk = await this.checkpoint("PASSIVE");
      // The tail: what was committed while the worker copied. A commit starts the WAL over only
      // when every frame in it was copied back; under steady writes the worker never catches up (the
      // WAL grew to 82,000 frames in 10 s at one user), so this thread copies the few frames left.
      const passive = bulk && this.thread !== "main" ? this.tail() : bulk;
      if (!passive) return;
      const idle = passive.log === this.lastLog;
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
  private async checkpoint(mode: CheckpointMode): Promise<CheckpointResult["row"] | undefined> {
    if (this.stopped) return undefined;
    let result: CheckpointResult | undefined;
    const thread = this.startedThread();
    if (thread !== "main") result = await thread.checkpoint(mode).catch(notGone);
    if (!result) {
      // The worker is gone (this checkpoint falls back too), unless it was stopped meanwhile.
      if (this.stopped) return undefined;
      result = this.here(mode);
      this.stats.onMainThread++;
    }
    if (mode === "PASSIVE") this.stats.passive++;
    else this.stats.truncate++;
    this.stats.slowestMs = Math.max(this.stats.slowestMs, result.ms);
    return result.row;
  }

  private tail(): CheckpointResult["row"] | undefined {
    if (this.stopped) return undefined;
    const { row, ms } = this.here("PASSIVE");
    this.stats.tails++;
    this.stats.slowestTailMs = Math.max(this.stats.slowestTailMs, ms);
    return row;
  }

  private startedThread(): CheckpointThread | "main" {
    if (this.thread) return this.thread;
    try {
      this.thread = new CheckpointThread({
        path: this.db.name,
        synchronous: Number(this.db.pragma("synchronous", { simple: true })),
        onGone: (reason) => this.fallBack(reason),
        ...(this.options.driverPath ? { driverPath: this.options.driverPath } : {}),
      });
    } catch (error) {
      this.fallBack((error as Error).message);
    }
    return this.thread ?? "main";
  }

  private fallBack(reason: string): void {
    this.thread = "main";
    this.options.logger.warn({ reason }, "WAL checkpoint thread stopped; checkpointing on the main thread");
  }

  private here(mode: CheckpointMode): CheckpointResult {
    const started = performance.now();
    const [row] = this.db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult["row"][];
    return { row: row ?? { busy: 0, log: 0, checkpointed: 0 }, ms: performance.now() - started };
  }
}

/** A worker that is gone answers undefined (checkpoint here instead); other failures stay failures. */
function notGone(error: unknown): undefined {
  if (error instanceof CheckpointThreadGone) return undefined;
  throw error;
}
