import type { SqliteDatabase } from "@phonework/runtime";

// Rows that only matter for a TTL (delivered ids, seen events, request origins): the older ones
// are deleted at most once an hour, from the code path that writes them, so no timer has to be
// started or stopped. The table needs an `at` column (epoch ms); a row TTL old or older goes.

const SWEEP_EVERY_MS = 3_600_000;

export class ExpiringRows {
  private lastSweep = Number.NEGATIVE_INFINITY;
  private readonly expire;

  constructor(
    db: SqliteDatabase,
    table: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.expire = db.prepare(`DELETE FROM ${table} WHERE at <= ?`);
  }

  /** Sweeps if the last sweep is over an hour old. */
  sweepIfDue(): void {
    if (this.now() - this.lastSweep > SWEEP_EVERY_MS) this.sweep();
  }

  /** Deletes the expired rows now; returns how many. */
  sweep(): number {
    this.lastSweep = this.now();
    return this.expire.run(this.lastSweep - this.ttlMs).changes;
  }
}
