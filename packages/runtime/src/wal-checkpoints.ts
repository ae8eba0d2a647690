import type { Logger } from "./logger.ts";
import type { SqliteDatabase } from "./sqlite.ts";

// A database's WAL checkpoints on a schedule instead of inside a commit (router.db and the host's
// state.db). SQLite's default copies the WAL back into the database file from inside whichever commit
// pushes the WAL past 1,000 pages: that commit, and the message waiting on it, pays a checkpoint (the
// database file's fsync on top of the commit's), which was the forwarded p99 on both sides. Here autocheckpoint is off and a
// timer runs a PASSIVE checkpoint (never waits for a reader or writer) every interval while there are
// writes, and a TRUNCATE one (the WAL file back to 0 bytes) once a whole interval passed without any.

export interface WalCheckpointOptions {
  intervalMs?: number;
  logger: Logger;
}

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

export class WalCheckpoints {
  private readonly timer: NodeJS.Timeout;
  /** WAL frames at the last tick; unchanged over a tick means no writes since (idle). */
  private lastLog = -1;
  private truncated = false;
  /** Checkpoints run (the bench reads them). */
  readonly stats = { passive: 0, truncate: 0 };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: WalCheckpointOptions,
  ) {
    db.pragma("wal_autocheckpoint = 0");
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 1000).unref();
  }

  /** One tick: PASSIVE while there are writes, TRUNCATE once idle. Never throws. */
  tick(): void {
    try {
      const passive = this.checkpoint("PASSIVE");
      this.stats.passive++;
      const idle = passive.log === this.lastLog;
      this.lastLog = passive.log;
      if (passive.log > 0) this.truncated = false;
      if (idle && !this.truncated && passive.busy === 0) {
        this.checkpoint("TRUNCATE");
        this.stats.truncate++;
        this.truncated = true;
        this.lastLog = 0;
      }
    } catch (error) {
      this.options.logger.warn({ err: (error as Error).message }, "WAL checkpoint failed; retried next tick");
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private checkpoint(mode: "PASSIVE" | "TRUNCATE"): CheckpointRow {
    const [row] = this.db.pragma(`wal_checkpoint(${mode})`) as CheckpointRow[];
    return row ?? { busy: 0, log: 0, checkpointed: 0 };
  }
}
