import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";

// Rows that only matter for a TTL (delivered ids, seen events, request origins, buttons, sign-ins):
// the expired ones are deleted from the code path that writes them, so no timer has to be started
// or stopped. The table needs an `at` column (epoch ms); a row TTL old or older goes. Two ways:
//
// - By `at`, for a table with an index on `at`: one DELETE of everything expired, hourly.
// - Along the key (`alongKey`), for a table without one. An `at` index costs every insert a B-tree
//   write and its WAL pages, and the tables on a message's path (seen_events, delivered, requests)
//   take an insert per message, for an index only the sweep used. Instead a pass walks the table in
//   key order, CHUNK keys a step (one short transaction), deleting the expired ones among them, and
//   starts over after the last key. Steps are paced so that a pass takes SWEEP_EVERY_MS whatever the
//   table's size (interval = SWEEP_EVERY_MS ÷ the steps the previous pass needed), one step at most
//   per call. A pass still running when its hour is up (the table grew) steps on every call until it
//   wraps; a first pass whose size is unknown (nothing swept yet) does so from the start.
//
// Bound, along the key: a pass deletes every row that had expired when it began (its step reaches
// the row later). A pass lasts SWEEP_EVERY_MS plus one gap between calls, if sweepIfDue is called
// at least once per interval and the table did not grow by more than a chunk meanwhile (else one
// call more per extra chunk). A row expires during some pass and the next one deletes it: it is gone
// by `at` + TTL + 2 × SWEEP_EVERY_MS + 2 call gaps. Until then an expired row is still there:
// readers that care compare `at` themselves (seen events do; a delivered id answers until swept).
// Both ways, a clock set back by more than an hour (one that ran ahead, corrected) makes what was
// due due at once, instead of stopping the sweeps until the clock is there again.
//
// `sweep()` deletes everything expired at once (construction, prune): along the key a full scan and a
// count, ~5–15 ms a table of 100k rows and 0.1–0.2 s of 1M here when little has expired.
//
// A `listener` (a TableKeyFilter) hears when a sweep — the full one, or a pass along the key —
// begins and when it is done: then every row written before it began with `at` at or before its
// cutoff (a pass: its earliest step's) is deleted. Only if none of its deletes ran inside a
// transaction still open (one rolled back would bring rows back).

const SWEEP_EVERY_MS = 3_600_000;
/** Keys per step along the key: a step costs ~0.1–0.5 ms at any table size. */
export const SWEEP_CHUNK = 512;

export interface ExpiringRowsOptions {
  /** The table's primary key column (one column, no `at` index): sweep along it in steps. */
  alongKey?: string;
  /** Told when each sweep begins and is done (what a sweep guarantees, above). */
  listener?: SweepListener;
}

export interface SweepListener {
  /** A sweep begins: a mark of what was written before it, handed back when it is done. */
  sweepBegins(): number;
  /** The sweep begun at `mark` is done: rows written before it with `at` ≤ cutoff are gone. */
  swept(cutoff: number, mark: number): void;
}

/** What one step along the key did. */
export interface SweepStep {
  /** Rows in the chunk (≤ SWEEP_CHUNK); fewer: the step reached the last key and the pass wrapped. */
  visited: number;
  deleted: number;
}

export class ExpiringRows {
  private readonly expire: SqliteStatement;
  private readonly countRows: SqliteStatement | undefined;
  private readonly runStep:
    | ((cursor: unknown, cutoff: number) => { step: SweepStep; last: unknown })
    | undefined;
  /** When sweep() last ran: what `sweepIfDue` goes by, by `at` (along the key, the pass below does). */
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** The last key the pass has visited; undefined: the pass starts at the first key. */
  private cursor: unknown;
  private passStart = Number.NEGATIVE_INFINITY;
  private passSteps = 0;
  private passVisited = 0;
  /** Between steps; 0 until a pass has told how big the table is. */
  private interval = 0;
  private nextStepAt = Number.NEGATIVE_INFINITY;
  private readonly listener: SweepListener | undefined;
  /** The pass's listener mark, its earliest step's cutoff, and whether every step ran outside a transaction. */
  private pass = { mark: 0, cutoff: Number.POSITIVE_INFINITY, committed: true };

  constructor(
    private readonly db: SqliteDatabase,
    table: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
    options: ExpiringRowsOptions = {},
  ) {
    this.listener = options.listener;
    this.expire = db.prepare(`DELETE FROM ${table} WHERE at <= ?`);
    const key = options.alongKey;
    if (key === undefined) return;
    const chunks = {
      // count and max of the chunk's keys in one read of the key's B-tree; max is where the next starts.
      firstChunk: db.prepare(
        `SELECT count(*) AS visited, max(${key}) AS last FROM (SELECT ${key} FROM ${table} ORDER BY ${key} LIMIT ${SWEEP_CHUNK})`,
      ),
      nextChunk: db.prepare(
        `SELECT count(*) AS visited, max(${key}) AS last FROM (SELECT ${key} FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ${SWEEP_CHUNK})`,
      ),
      deleteFirst: db.prepare(`DELETE FROM ${table} WHERE ${key} <= ? AND at <= ?`),
      deleteNext: db.prepare(`DELETE FROM ${table} WHERE ${key} > ? AND ${key} <= ? AND at <= ?`),
    };
    this.countRows = db.prepare(`SELECT count(*) FROM ${table}`).pluck();
    this.runStep = db.transaction((cursor: unknown, cutoff: number) => {
      const first = cursor === undefined;
      const chunk = (first ? chunks.firstChunk.get() : chunks.nextChunk.get(cursor)) as {
        visited: number;
        last: unknown;
      };
      if (chunk.visited === 0) return { step: { visited: 0, deleted: 0 }, last: undefined };
      const deleted = first
        ? chunks.deleteFirst.run(chunk.last, cutoff).changes
        : chunks.deleteNext.run(cursor, chunk.last, cutoff).changes;
      return { step: { visited: chunk.visited, deleted }, last: chunk.last };
    });
    this.startPass(now(), undefined);
  }

  /**
   * By `at`: sweeps if the last sweep is over an hour old. Along the key: one step if one is due
   * (what it did), else nothing.
   */
  sweepIfDue(): SweepStep | undefined {
    const now = this.now();
    // Never more than an hour away unless the clock was set back (a clock ahead, corrected): then
    // what was due is due now, not once the clock has caught up again, days or a year later.
    if (this.runStep === undefined) {
      if (now - this.lastSweep > SWEEP_EVERY_MS || this.lastSweep - now > SWEEP_EVERY_MS) this.sweep();
      return undefined;
    }
    if (this.nextStepAt - now > SWEEP_EVERY_MS) {
      this.passStart -= this.nextStepAt - now;
      this.nextStepAt = now;
    }
    if (now < this.nextStepAt) return undefined;
    // Counted before it runs: a step that throws (its error goes to the caller) is retried when the
    // next one is due, not on every call.
    this.passSteps++;
    this.nextStepAt = this.passStart + Math.min(this.passSteps * this.interval, SWEEP_EVERY_MS);
    this.stepping(now - this.ttlMs);
    const { step, last } = this.runStep(this.cursor, now - this.ttlMs);
    this.passVisited += step.visited;
    // Past the last key: the next pass starts an hour after this one did (now, if it ran late).
    if (step.visited < SWEEP_CHUNK) {
      if (this.pass.committed) this.listener?.swept(this.pass.cutoff, this.pass.mark);
      this.startPass(Math.max(now, this.passStart + SWEEP_EVERY_MS), this.passVisited);
    } else this.cursor = last;
    return step;
  }

  /** Deletes the expired rows now (a full scan along the key); returns how many. */
  sweep(): number {
    const now = this.now();
    this.lastSweep = now;
    const mark = this.listener?.sweepBegins() ?? 0;
    const committed = !this.db.inTransaction;
    const deleted = this.expire.run(now - this.ttlMs).changes;
    if (committed) this.listener?.swept(now - this.ttlMs, mark);
    if (this.countRows) this.startPass(now + SWEEP_EVERY_MS, this.countRows.get() as number);
    return deleted;
  }

  /** Before a step: the pass's first marks where it began; a step inside an open transaction spoils it. */
  private stepping(cutoff: number): void {
    if (!this.listener) return;
    if (this.cursor === undefined) this.pass = { mark: this.listener.sweepBegins(), cutoff, committed: true };
    this.pass.cutoff = Math.min(this.pass.cutoff, cutoff);
    if (this.db.inTransaction) this.pass.committed = false;
  }

  /** `rows`: how many the previous pass visited, the size this one is paced for (undefined: unknown). */
  private startPass(at: number, rows: number | undefined): void {
    this.cursor = undefined;
    this.passStart = at;
    this.passSteps = 0;
    this.passVisited = 0;
    this.interval = rows === undefined ? 0 : SWEEP_EVERY_MS / Math.max(1, Math.ceil(rows / SWEEP_CHUNK));
    this.nextStepAt = at;
  }
}
