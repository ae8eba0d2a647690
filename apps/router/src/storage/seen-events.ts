import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { TableKeyFilter } from "./table-key-filter.ts";

// Event and message ids already handled, so a redelivered event (Feishu retries after ~3 s
// without an ack, and again after a restart) or a replayed webhook is dropped. One row per id in
// router.db, so it survives a restart; rows older than the TTL no longer count and are pruned.
// Several SeenEvents on one table (the intake's, a Feishu or Slack HTTP adapter's) share one
// sweeper (expiring-rows.ts `of`: one start-up sweep, one pass, by the longest of their TTLs);
// each compares a row's `at` with its own TTL.
// A key the table certainly does not hold (nearly every key: redeliveries are rare) is answered
// from memory (table-key-filter.ts), without a SELECT. This class is the table's only writer, and
// every key it writes goes to the filter first: keep it so (the filter's header says why).

export const SEEN_EVENTS_MIGRATION = `
  CREATE TABLE seen_events (
    key TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  );
  CREATE INDEX seen_events_at ON seen_events (at);`;

/**
 * The same table WITHOUT ROWID, rows kept: the key's B-tree holds the row itself, so a message's
 * upsert writes two B-trees (the key's, the `at` index) instead of three.
 */
export const SEEN_EVENTS_WITHOUT_ROWID_MIGRATION = `
  CREATE TABLE seen_events_rebuilt (
    key TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO seen_events_rebuilt (key, at) SELECT key, at FROM seen_events WHERE key IS NOT NULL;
  DROP TABLE seen_events;
  ALTER TABLE seen_events_rebuilt RENAME TO seen_events;
  CREATE INDEX seen_events_at ON seen_events (at);`;

export class SeenEvents {
  private readonly select;
  private readonly remember;
  private readonly forgetOne;
  private readonly expiring;
  /** Which keys may be in the table: shared by every SeenEvents on this connection. */
  private readonly filter: TableKeyFilter;
  /** One transaction: the check and the write are one commit, and nothing runs in between. Built once. */
  private readonly checkAndRememberAt: (keys: string[], now: number) => boolean;

  constructor(
    db: SqliteDatabase,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.select = db.prepare("SELECT at FROM seen_events WHERE key = ?").pluck();
    this.remember = db.prepare(
      "INSERT INTO seen_events (key, at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET at = excluded.at",
    );
    this.forgetOne = db.prepare("DELETE FROM seen_events WHERE key = ?");
    // The table's one sweeper and one filter on this connection, whatever the number of stores:
    // swept at start by the first, the filter built after that sweep (withSweeper says why).
    const shared = TableKeyFilter.withSweeper(db, "seen_events", ttlMs, now);
    this.expiring = shared.expiring;
    this.filter = shared.filter;
    this.checkAndRememberAt = db.transaction((keys: string[], at: number) => {
      const repeat = this.anySeenWithin(keys, at);
      for (const key of keys) this.rememberAt(key, at);
      return repeat;
    });
  }

  /** The same store on a private in-memory database (tests, headless use). */
  static inMemory(ttlMs: number, now: () => number): SeenEvents {
    return new SeenEvents(
      openDatabase(":memory:", {
        migrations: [SEEN_EVENTS_MIGRATION, SEEN_EVENTS_WITHOUT_ROWID_MIGRATION, "DROP INDEX seen_events_at"],
      }),
      ttlMs,
      now,
    );
  }

  /** Records the keys; returns true if any of them was seen within the TTL (a redelivery). */
  checkAndRemember(keys: string[]): boolean {
    this.expiring.sweepIfDue();
    return this.checkAndRememberAt(keys, this.now());
  }

  /** Whether any of the keys was seen within the TTL; remembers nothing (checkAndRemember does). */
  seenWithin(keys: string[]): boolean {
    this.expiring.sweepIfDue();
    const now = this.now();
    return this.anySeenWithin(keys, now);
  }

  /** Records the keys as seen now, without checking (the caller checked with `seenWithin`). */
  rememberAll(keys: string[]): void {
    const now = this.now();
    for (const key of keys) this.rememberAt(key, now);
  }

  /** Forgets keys remembered for an event that was not taken after all. */
  forget(keys: string[]): void {
    for (const key of keys) this.forgetOne.run(key);
  }

  prune(): number {
    return this.expiring.sweep();
  }

  /**
   * Whether any key was seen within the TTL before `now`: the SELECT only for a key the filter
   * cannot rule out. A loop, not `keys.some(closure)`: no closure allocated per message.
   */
  private anySeenWithin(keys: string[], now: number): boolean {
    for (const key of keys) {
      if (!this.filter.mayHave(key)) continue;
      const seenAt = this.select.get(key) as number | undefined;
      if (seenAt !== undefined && now - seenAt < this.ttlMs) return true;
    }
    return false;
  }

  /** The one way a key is written: into the filter first, with the same `at`. */
  private rememberAt(key: string, at: number): void {
    this.filter.add(key, at);
    this.remember.run(key, at);
  }
}
