import type { SqliteDatabase } from "@phonework/runtime";

// Rows that only matter for a TTL (delivered ids, seen events, request origins): the older ones
// are deleted at most once an hour, from the code path that writes them, so no timer has to be
// started or stopped. The table needs an `at` column (epoch ms); a row TTL old or older goes.
// A store with a TableKeyFilter tells it each sweep's `cutoff` (its layers go by it).

const SWEEP_EVERY_MS = 3_600_000;

export class ExpiringRows {
  private lastSweep = Number.NEGATIVE_INFINITY;
  private lastCutoff = Number.NEGATIVE_INFINITY;
  private readonly expire;

  constructor(
    db: SqliteDatabase,
    table: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.expire = db.prepare(`DELETE FROM ${table} WHERE at <= ?`);
  }

  /** Sweeps if the last sweep is over an hour old; true if it swept. */
  sweepIfDue(): boolean {
    if (this.now() - this.lastSweep <= SWEEP_EVERY_MS) return false;
    this.sweep();
    return true;
  }

  /** Deletes the expired rows now; returns how many. */
  sweep(): number {
    this.lastSweep = this.now();
    const cutoff = this.lastSweep - this.ttlMs;
    const deleted = this.expire.run(cutoff).changes;
    this.lastCutoff = cutoff;
    return deleted;
  }

  /** The last sweep deleted every row with `at` at or before this. */
  get cutoff(): number {
    return this.lastCutoff;
  }
}
