import { join } from "node:path";
import type { SqliteDatabase } from "@phonework/runtime";
import { makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
import { RequestLog } from "../src/delivery/request-log.ts";
import { ExpiringRows, SWEEP_CHUNK } from "../src/storage/expiring-rows.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";
import { TableKeyFilter } from "../src/storage/table-key-filter.ts";
import { countingDatabase } from "./fixtures/counting-database.ts";

// Several stores on one TTL table (the intake's SeenEvents and a Feishu adapter's) share one
// sweeper: the table is swept once at start and walked by one pass, by the longest TTL of its
// stores, so a redelivery the longer-TTL store still counts is dropped; and the key filter is
// built after that start-up sweep, from live rows only. Real router.db files, a fake clock.

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1);
const { path: dir, remove } = makeTempDir("shared-sweeper-");
afterAll(remove);
let files = 0;

/** router.db in a fresh file, with `expired` and `live` rows in `table` (written before any store). */
function routerDbWith(table: "seen_events" | "delivered", expired: number, live: number): SqliteDatabase {
  const db = openRouterDatabase(join(dir, `r${files++}.db`));
  const insert =
    table === "seen_events"
      ? db.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)")
      : db.prepare("INSERT INTO delivered (key, state, message_id, at) VALUES (?, 'delivered', 'm', ?)");
  db.transaction(() => {
    for (let i = 0; i < expired; i++) insert.run(`old-${i}`, T0 - 2 * DAY - i);
    for (let i = 0; i < live; i++) insert.run(`live-${i}`, T0 - HOUR + i);
  })();
  return db;
}

const rowCount = (db: SqliteDatabase, table: string) =>
  db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe("one sweeper per table", () => {
  it("sweeps a table with two stores on it once at start, and walks it with one pass", () => {
    const { db, runs } = countingDatabase(routerDbWith("seen_events", 3 * SWEEP_CHUNK, 3 * SWEEP_CHUNK));
    try {
      const clock = { t: T0 };
      const intake = new SeenEvents(db, DAY, () => clock.t);
      const adapter = new SeenEvents(db, DAY, () => clock.t);
      new DeliveredStore(db, DAY, () => clock.t);
      new DeliveredStore(db, DAY, () => clock.t);
      expect(runs("DELETE FROM seen_events WHERE at <= ?")).toBe(1);
      expect(runs("DELETE FROM delivered WHERE at <= ?")).toBe(1);
      expect(runs("SELECT key, at FROM seen_events ORDER BY key LIMIT 4096")).toBe(1); // one filter
      expect(rowCount(db, "seen_events")).toBe(3 * SWEEP_CHUNK);
      // Expired rows written after the first store started: the second store's start left them
      // (it did not sweep), and so does a third's.
      const insert = db.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)");
      for (let i = 0; i < 10; i++) insert.run(`late-${i}`, T0 - 2 * DAY);
      new SeenEvents(db, DAY, () => clock.t);
      expect(rowCount(db, "seen_events")).toBe(3 * SWEEP_CHUNK + 10);
      // Two hours of lookups, one a second on each store in turn: the steps of ONE pass an hour
      // (3 chunks and the short one that wraps), not one pass per store.
      const firstChunk = `SELECT count(*) AS visited, max(key) AS last FROM (SELECT key FROM seen_events ORDER BY key LIMIT ${SWEEP_CHUNK})`;
      const nextChunk = `SELECT count(*) AS visited, max(key) AS last FROM (SELECT key FROM seen_events WHERE key > ? ORDER BY key LIMIT ${SWEEP_CHUNK})`;
      for (let n = 0; clock.t < T0 + 2 * HOUR; n++) {
        clock.t += SECOND;
        expect((n % 2 === 0 ? intake : adapter).seenWithin([`probe-${n}`])).toBe(false);
      }
      expect(runs(firstChunk)).toBe(1);
      expect(runs(nextChunk)).toBe(3);
      expect(rowCount(db, "seen_events")).toBe(3 * SWEEP_CHUNK); // the late rows went, the live ones stay
    } finally {
      db.close();
    }
  });

  it("refuses a store of the same table that sweeps another way", () => {
    const db = routerDbWith("seen_events", 0, 0);
    try {
      ExpiringRows.of(db, "requests", DAY, () => T0, { alongKey: "id" });
      expect(() => ExpiringRows.of(db, "requests", DAY, () => T0, { alongKey: "node_id" })).toThrow(
        /stores of table requests disagree/,
      );
      expect(() =>
        ExpiringRows.of(db, "requests", DAY, () => T0, { alongKey: "id", sweepAtStart: true }),
      ).toThrow(/stores of table requests disagree/);
      const rows = ExpiringRows.of(db, "requests", DAY, () => T0, { alongKey: "id" });
      rows.listen(TableKeyFilter.of(db, "seen_events"));
      rows.listen(TableKeyFilter.of(db, "seen_events")); // the same one again: nothing
      expect(() => rows.listen(TableKeyFilter.of(db, "delivered"))).toThrow(/already have a listener/);
    } finally {
      db.close();
    }
  });
});

describe("stores with different TTLs on one table", () => {
  it("keeps the rows the longer-TTL store counts: a replay after the shorter TTL is still dropped", () => {
    const db = routerDbWith("seen_events", 0, 0);
    try {
      const clock = { t: T0 };
      const long = new SeenEvents(db, DAY, () => clock.t);
      const short = new SeenEvents(db, HOUR, () => clock.t);
      expect(short.checkAndRemember(["feishu:e:1"])).toBe(false);
      // An attacker replays the event 5 hours later, after passes and a full sweep by the short store.
      for (let n = 0; clock.t < T0 + 5 * HOUR; n++) {
        clock.t += 10 * SECOND;
        short.seenWithin([`probe-${n}`]);
      }
      short.prune();
      expect(rowCount(db, "seen_events")).toBe(1);
      expect(short.seenWithin(["feishu:e:1"])).toBe(false); // past its own TTL: not counted by it
      expect(long.checkAndRemember(["feishu:e:1"])).toBe(true); // within the longer one: dropped
      // Past the longer TTL too (and its passes): gone.
      for (let n = 0; clock.t < T0 + 5 * HOUR + DAY + 3 * HOUR; n++) {
        clock.t += 60 * SECOND;
        long.seenWithin([`probe-${n}`]);
      }
      expect(rowCount(db, "seen_events")).toBe(0);
    } finally {
      db.close();
    }
  });

  it("refuses a longer-TTL store once the table was swept by a shorter TTL, with the reason", async () => {
    const db = routerDbWith("seen_events", 0, 0);
    try {
      new SeenEvents(db, HOUR, () => T0); // swept at start by an hour
      expect(() => new SeenEvents(db, DAY, () => T0)).toThrow(
        /table seen_events is already swept by a TTL of 3600000 ms; a store counting its rows for 86400000 ms/,
      );
      // Nothing deleted yet (requests are not swept at start): the longer TTL is taken.
      const clock = { t: T0 };
      const short = new RequestLog(db, HOUR, () => clock.t);
      const long = new RequestLog(db, DAY, () => clock.t);
      const origin = { nodeId: "home", userId: "telegram:1", platform: "telegram", chatId: "telegram:c1" };
      await short.record("req-1", origin);
      clock.t += 2 * HOUR;
      await short.record("req-2", origin); // the first pass steps at once, by the day: req-1 stays
      expect(long.originOf("home", "req-1")).toEqual(origin);
      // A step has deleted by the day since: a still longer TTL is refused now.
      expect(() => new RequestLog(db, 2 * DAY, () => clock.t)).toThrow(/table requests is already swept/);
      clock.t += DAY;
      await long.record("req-3", origin); // past the day: the next step deletes it
      expect(short.originOf("home", "req-1")).toBeUndefined();
    } finally {
      db.close();
    }
  });
});

describe("the key filter after start-up", () => {
  it.each(["seen_events", "delivered"] as const)(
    "%s: holds only the keys the start-up sweep left",
    (table) => {
      const db = routerDbWith(table, 20_000, 100);
      try {
        if (table === "seen_events") new SeenEvents(db, DAY, () => T0);
        else new DeliveredStore(db, DAY, () => T0);
        const filter = TableKeyFilter.of(db, table);
        expect(rowCount(db, table)).toBe(100);
        for (let i = 0; i < 100; i++) expect(filter.mayHave(`live-${i}`)).toBe(true);
        // Every one of the 20,000 expired keys is ruled out (built from them, none would be), and
        // the filter is one smallest layer, sized for the live rows.
        let maybe = 0;
        for (let i = 0; i < 20_000; i++) if (filter.mayHave(`old-${i}`)) maybe++;
        expect(maybe).toBe(0);
        expect({ layers: filter.layerCount, bytes: filter.bytes }).toEqual({ layers: 1, bytes: 8192 });
      } finally {
        db.close();
      }
    },
  );
});
