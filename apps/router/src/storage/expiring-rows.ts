import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";
import { PerConnection } from "./per-connection.ts";

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
// `sweep()` deletes everything expired at once (the first store's start, prune): along the key a
// full scan and a count, ~5–15 ms a table of 100k rows and 0.1–0.2 s of 1M here when little has
// expired.
//
// One per (connection, table): `of` hands every store of a table on a connection the same instance
// (TableKeyFilter.of's way), so the table is swept once at start (`sweepAtStart`, by the first
// store) and walked by one pass, whatever the number of stores on it (a router with Feishu has two
// SeenEvents, the intake's and the adapter's, and one more per further Feishu or Slack HTTP bot).
// Stores on one table may count rows for different TTLs: the shared sweeper deletes only what the
// LONGEST of them no longer counts, and each store still compares `at` with its own TTL when it
// reads (SeenEvents does; a DeliveredStore answers as long as the row is there). A store with a
// longer TTL than the one the table was already swept by is refused with an error: the rows it
// would count between the two TTLs may be gone, and a redelivery of one would go through twice.
// Create the longest-TTL store first (the router's stores of one table share one config TTL). The
// sweeper goes by the first store's clock. A table with one store of its own (chat_buttons,
// plan_grants, console sessions and links) constructs its ExpiringRows directly.
//
// A listener (a TableKeyFilter, by `listen`) hears when a sweep — the full one, or a pass along the key —
// begins and when it is done: then every row written before it began with `at` at or before its
// cutoff (a pass: its earliest step's) is deleted. Only if none of its deletes ran inside a
// transaction still open (one rolled back would bring rows back).

const SWEEP_EVERY_MS = 3_600_000;
/** Keys per step along the key: a step costs ~0.1–0.5 ms at any table size. */
export const SWEEP_CHUNK = 512;

export interface ExpiringRowsOptions {
  /** The table's primary key column (one column, no `at` index): sweep along it in steps. */
  alongKey?: string;
}

/** How a store asks for its table's shared sweeper (`ExpiringRows.of`); every store of a table asks alike. */
export interface SharedExpiringRowsOptions extends ExpiringRowsOptions {
  /** Delete what has expired when the sweeper is created (the first store of the table only). */
  sweepAtStart?: boolean;
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
  private static readonly shared = new PerConnection<{
    rows: ExpiringRows;
    options: SharedExpiringRowsOptions;
  }>();

  /**
   * The sweeper of `table` on this connection, shared by every store of it: created (and, with
   * `sweepAtStart`, swept) by the first; a later one with a shorter TTL changes nothing, one with a
   * longer TTL raises it only if nothing has been deleted yet, else throws (the header says why).
   */
  static of(
    db: SqliteDatabase,
    table: string,
    ttlMs: number,
    now: () => number,
    options: SharedExpiringRowsOptions = {},
  ): ExpiringRows {
    const shared = ExpiringRows.shared.get(db, table);
    if (!shared) {
      const rows = new ExpiringRows(db, table, ttlMs, now, options);
      ExpiringRows.shared.set(db, table, { rows, options });
      if (options.sweepAtStart) rows.sweep();
      return rows;
    }
    if (
      shared.options.alongKey !== options.alongKey ||
      !shared.options.sweepAtStart !== !options.sweepAtStart
    ) {
      throw new Error(
        `ExpiringRows: the stores of table ${table} disagree on how it is swept (${JSON.stringify(shared.options)} and ${JSON.stringify(options)})`,
      );
    }
    shared.rows.countFor(table, ttlMs);
    return shared.rows;
  }

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
  /** Told when each sweep begins and is done (what a sweep guarantees, above); set by `listen`. */
  private listener: SweepListener | undefined;
  /** Whether a sweep or a step has run (deleted by `ttlMs`): a longer TTL can no longer be honoured. */
  private hasDeleted = false;
  /** The pass's listener mark, its earliest step's cutoff, and whether every step ran outside a transaction. */
  private pass = { mark: 0, cutoff: Number.POSITIVE_INFINITY, committed: true };

  constructor(
    private readonly db: SqliteDatabase,
    table: string,
    private ttlMs: number,
    private readonly now: () => number,
    options: ExpiringRowsOptions = {},
  ) {
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
      if (Math.abs(now - this.lastSweep) > SWEEP_EVERY_MS) this.sweep();
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
    this.hasDeleted = true;
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
    this.hasDeleted = true;
    const mark = this.listener?.sweepBegins() ?? 0;
    const committed = !this.db.inTransaction;
    const deleted = this.expire.run(now - this.ttlMs).changes;
    if (committed) this.listener?.swept(now - this.ttlMs, mark);
    if (this.countRows) this.startPass(now + SWEEP_EVERY_MS, this.countRows.get() as number);
    return deleted;
  }

  /**
   * Hears sweeps from now on (a store's TableKeyFilter, built after the start-up sweep so that it
   * reads live rows only). The same listener again changes nothing; another one is refused.
   */
  listen(listener: SweepListener): void {
    if (this.listener === listener) return;
    if (this.listener !== undefined)
      throw new Error("ExpiringRows: this table's sweeps already have a listener");
    this.listener = listener;
  }

  /** Another store counts the rows for `ttlMs`: kept until the longest TTL is past (the header says why). */
  private countFor(table: string, ttlMs: number): void {
    if (ttlMs <= this.ttlMs) return;
    if (this.hasDeleted) {
      throw new Error(
        `ExpiringRows: table ${table} is already swept by a TTL of ${this.ttlMs} ms; a store counting its rows for ${ttlMs} ms would miss rows already deleted. Create the store with the longest TTL first.`,
      );
    }
    this.ttlMs = ttlMs;
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
