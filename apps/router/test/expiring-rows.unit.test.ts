import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { ROUTER_MIGRATIONS } from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
import { RequestLog } from "../src/delivery/request-log.ts";
import { ExpiringRows, SWEEP_CHUNK, type SweepStep } from "../src/storage/expiring-rows.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";

// The TTL tables of a message's path have no index on `at`: ExpiringRows walks them along their
// key, a chunk a step, a pass an hour. Expired rows go within the bound its header states, rows
// within the TTL stay, no step reads more than a chunk, and no key (a stranger's event id) stops
// the walk from wrapping around. On router.db's real schema, in memory, with a fake clock.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1);

function routerDb(): SqliteDatabase {
  return openDatabase(":memory:", { migrations: ROUTER_MIGRATIONS });
}

function seenTable(db: SqliteDatabase) {
  const insert = db.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)");
  const insertAll = db.transaction((rows: Array<[string, number]>) => {
    for (const [key, at] of rows) insert.run(key, at);
  });
  return {
    insertAll,
    count: () => db.prepare("SELECT count(*) FROM seen_events").pluck().get() as number,
    countWhere: (sql: string, ...args: unknown[]) =>
      db
        .prepare(`SELECT count(*) FROM seen_events WHERE ${sql}`)
        .pluck()
        .get(...args) as number,
  };
}

/** Calls sweepIfDue once per `every` ms of the clock up to `until`; the steps it took, with their time. */
function runClock(
  clock: { t: number },
  rows: ExpiringRows,
  until: number,
  every = SECOND,
  onTick?: () => void,
): Array<SweepStep & { at: number }> {
  const steps: Array<SweepStep & { at: number }> = [];
  while (clock.t < until) {
    clock.t += every;
    const step = rows.sweepIfDue();
    if (step) steps.push({ ...step, at: clock.t });
    onTick?.();
  }
  return steps;
}

describe("ExpiringRows along the key", () => {
  it("deletes every row within TTL + 2 passes of its `at`, and none younger than the TTL", () => {
    const db = routerDb();
    const table = seenTable(db);
    const clock = { t: T0 };
    // A day's rows, none expired yet (keys not in `at` order); then one new row a minute.
    const all = Array.from({ length: 3000 }, (_, i): [string, number] => [
      `k${(i * 7919) % 3000}`,
      T0 - DAY + (i + 1) * 28_000,
    ]);
    table.insertAll(all);
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    expect(rows.sweep()).toBe(0);
    const add = db.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)");
    let ticks = 0;
    let sawExpired = false;
    runClock(clock, rows, T0 + 30 * HOUR, SECOND, () => {
      if (++ticks % 60 === 0) {
        add.run(`new-${ticks}`, clock.t);
        all.push([`new-${ticks}`, clock.t]);
      }
      if (ticks % 1800 !== 0) return;
      // The bound: `at` + TTL + 2 passes (+ two gaps between calls).
      expect(table.countWhere("at + ? < ?", DAY + 2 * HOUR + 2 * SECOND, clock.t)).toBe(0);
      // Every row within the TTL is still there.
      const young = all.filter(([, at]) => at > clock.t - DAY).length;
      expect(table.countWhere("at > ?", clock.t - DAY)).toBe(young);
      if (table.countWhere("at <= ?", clock.t - DAY) > 0) sawExpired = true;
    });
    // Every preloaded row is gone, yet expired rows did wait for their pass (no index to find them).
    expect(table.countWhere("key LIKE 'k%'")).toBe(0);
    expect(sawExpired).toBe(true);
  });

  it("no step reads or deletes more than a chunk, and a step deletes only the expired rows of its chunk", () => {
    const db = routerDb();
    const table = seenTable(db);
    const total = 5 * SWEEP_CHUNK + 37;
    // Keys in a known order; every other row expired.
    const keys = Array.from({ length: total }, (_, i) => `key-${String(i).padStart(6, "0")}`);
    table.insertAll(keys.map((key, i) => [key, i % 2 === 0 ? T0 - 2 * DAY : T0]));
    const clock = { t: T0 };
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    // Nothing swept yet, so its size is unknown: one step a call until the pass wraps.
    let visited = 0;
    for (let step = 0; step < 6; step++) {
      const before = table.count();
      const done = rows.sweepIfDue();
      expect(done).toBeDefined();
      if (!done) return;
      expect(done.visited).toBeLessThanOrEqual(SWEEP_CHUNK);
      expect(done.deleted).toBe(before - table.count());
      expect(done.deleted).toBeLessThanOrEqual(done.visited);
      visited += done.visited;
      // Exactly the expired rows among the keys visited so far are gone; the rest are untouched.
      const reached = keys[Math.min(visited, total) - 1] as string;
      expect(table.countWhere("key <= ? AND at < ?", reached, T0)).toBe(0);
      expect(table.countWhere("key > ? AND at < ?", reached, T0)).toBe(
        keys.filter((key, i) => key > reached && i % 2 === 0).length,
      );
    }
    expect(visited).toBe(total);
    expect(table.count()).toBe(Math.floor(total / 2));
    // The pass wrapped: the next one waits for its hour.
    expect(rows.sweepIfDue()).toBeUndefined();
  });

  it("paces a pass over an hour: rows ÷ chunk steps, at one call a second", () => {
    const db = routerDb();
    const table = seenTable(db);
    const total = 10 * SWEEP_CHUNK + 100; // 11 steps a pass
    table.insertAll(Array.from({ length: total }, (_, i) => [`k${i}`, T0]));
    const clock = { t: T0 };
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    rows.sweep(); // as the stores do at start: the table's size is known, the next pass in an hour
    const steps = runClock(clock, rows, T0 + 4 * HOUR - SECOND);
    const passStarts = steps.filter((_, i) => i % 11 === 0).map((step) => step.at);
    expect(steps.length).toBe(33);
    expect(passStarts).toEqual([T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);
    for (let pass = 0; pass < 3; pass++) {
      const ofPass = steps.slice(pass * 11, pass * 11 + 11);
      expect(ofPass.reduce((sum, step) => sum + step.visited, 0)).toBe(total);
      // Evenly spread: an hour ÷ 11 apart, to the second.
      for (let i = 1; i < ofPass.length; i++) {
        const gap = (ofPass[i]?.at ?? 0) - (ofPass[i - 1]?.at ?? 0);
        expect(Math.abs(gap - HOUR / 11)).toBeLessThanOrEqual(SECOND);
      }
    }
  });

  it("a pass over a table that grew steps on every call once its hour is up, until it wraps", () => {
    const db = routerDb();
    const table = seenTable(db);
    table.insertAll(Array.from({ length: 2 * SWEEP_CHUNK }, (_, i) => [`a${i}`, T0]));
    const clock = { t: T0 };
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    rows.sweep(); // 2 chunks: paced at a step every half hour
    table.insertAll(Array.from({ length: 8 * SWEEP_CHUNK }, (_, i) => [`b${i}`, T0])); // a flood
    const steps = runClock(clock, rows, T0 + 2 * HOUR + 8 * SECOND);
    // Two on schedule, then one a call from the hour's end until past the last key (visited 0).
    expect(steps.map((step) => step.at)).toEqual([
      T0 + HOUR,
      T0 + HOUR + HOUR / 2,
      ...Array.from({ length: 9 }, (_, i) => T0 + 2 * HOUR + i * SECOND),
    ]);
    expect(steps.map((step) => step.visited)).toEqual([...Array(10).fill(SWEEP_CHUNK), 0]);
    // It ran late, so the next pass starts at once, paced for the 10 chunks it saw.
    expect(runClock(clock, rows, clock.t + SECOND).map((step) => step.visited)).toEqual([SWEEP_CHUNK]);
    expect(runClock(clock, rows, clock.t + HOUR / 10 - 2 * SECOND)).toEqual([]);
    expect(runClock(clock, rows, clock.t + 2 * SECOND)).toHaveLength(1);
  });

  it("the first pass of a table never swept steps on every call, and sweep() deletes everything expired at once", () => {
    const db = routerDb();
    const table = seenTable(db);
    table.insertAll(
      Array.from({ length: 3 * SWEEP_CHUNK }, (_, i) => [`k${i}`, i < SWEEP_CHUNK ? T0 - DAY : T0]),
    );
    const clock = { t: T0 };
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    expect(runClock(clock, rows, T0 + 4 * SECOND).map((step) => step.visited)).toEqual([
      SWEEP_CHUNK,
      SWEEP_CHUNK,
      SWEEP_CHUNK,
      0,
    ]);
    expect(table.count()).toBe(2 * SWEEP_CHUNK);
    clock.t += DAY;
    expect(rows.sweep()).toBe(2 * SWEEP_CHUNK);
    expect(table.count()).toBe(0);
  });
  it("a step that fails throws to its caller once, and is tried again when the next step is due", () => {
    const db = routerDb();
    const table = seenTable(db);
    table.insertAll(Array.from({ length: 2 * SWEEP_CHUNK }, (_, i) => [`k${i}`, T0 - 2 * DAY]));
    const clock = { t: T0 };
    const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey: "key" });
    expect(rows.sweep()).toBe(2 * SWEEP_CHUNK); // paced for an empty table: a step an hour
    table.insertAll([["late", T0 - 2 * DAY]]);
    db.exec("ALTER TABLE seen_events RENAME TO seen_events_away");
    clock.t += HOUR;
    expect(() => rows.sweepIfDue()).toThrow(/no such table/);
    clock.t += SECOND;
    expect(rows.sweepIfDue()).toBeUndefined(); // not on every call after it
    db.exec("ALTER TABLE seen_events_away RENAME TO seen_events");
    clock.t += HOUR;
    expect(rows.sweepIfDue()).toEqual({ visited: 1, deleted: 1 });
  });

  it("a clock that ran ahead and was set back does not stop the sweeps until it is there again", () => {
    const YEAR = 365 * DAY;
    for (const alongKey of ["key", undefined]) {
      const db = routerDb();
      if (!alongKey) db.exec("CREATE INDEX seen_events_at ON seen_events (at)");
      const table = seenTable(db);
      const clock = { t: T0 + YEAR }; // started with the clock a year ahead: sweeps planned from then
      const rows = new ExpiringRows(db, "seen_events", DAY, () => clock.t, { alongKey });
      expect(rows.sweep()).toBe(0);
      clock.t = T0; // corrected
      table.insertAll(Array.from({ length: 2 * SWEEP_CHUNK }, (_, i) => [`k${i}`, T0]));
      runClock(clock, rows, T0 + DAY + 3 * HOUR, MINUTE);
      expect({ alongKey, left: table.count() }).toEqual({ alongKey, left: 0 });
    }
  });
});

describe("the stores keep their semantics without the index", () => {
  it("seen events: a row past the TTL no longer counts before any sweep reaches it", () => {
    const db = routerDb();
    const clock = { t: T0 };
    const seen = new SeenEvents(db, HOUR / 2, () => clock.t); // swept at start: the next pass in an hour
    expect(seen.checkAndRemember(["feishu:e:1"])).toBe(false);
    clock.t += HOUR / 2; // exactly the TTL: no longer a redelivery, though the row is still there
    expect(seen.seenWithin(["feishu:e:1"])).toBe(false);
    expect(seenTable(db).count()).toBe(1);
  });

  it("delivered: a row past the TTL still answers delivered until the sweep deletes it", async () => {
    const db = routerDb();
    const clock = { t: T0 };
    const delivered = new DeliveredStore(db, DAY, () => clock.t);
    // Written through the store (the only writer: its filter hears every key).
    expect(delivered.begin("home/d-1")).toEqual({ state: "new" });
    await delivered.finish("home/d-1", "m-1");
    // Two passes just before the row expires (the first ran late, so the second follows at once);
    // the next one starts an hour after the second.
    clock.t = T0 + DAY - 10 * MINUTE;
    expect(delivered.begin("home/d-1")).toEqual({ state: "delivered", messageId: "m-1" });
    expect(delivered.begin("home/d-1")).toEqual({ state: "delivered", messageId: "m-1" });
    // Past the TTL, before that pass: begin does not look at `at`, so the row still answers.
    clock.t = T0 + DAY + 10 * MINUTE;
    expect(delivered.begin("home/d-1")).toEqual({ state: "delivered", messageId: "m-1" });
    clock.t = T0 + DAY + 50 * MINUTE;
    expect(delivered.begin("home/d-2")).toEqual({ state: "new" }); // this call's step deletes it
    expect(delivered.begin("home/d-1")).toEqual({ state: "new" });
  });

  it("requests: swept along their `id`", async () => {
    const db = routerDb();
    const clock = { t: T0 };
    const log = new RequestLog(db, DAY, () => clock.t);
    const origin = { nodeId: "home", userId: "telegram:1", platform: "telegram", chatId: "telegram:c1" };
    await log.record("req-old", origin);
    clock.t += DAY + SECOND;
    await log.record("req-new", origin); // the first pass (size unknown) steps at once
    expect(log.originOf("home", "req-old")).toBeUndefined();
    expect(log.originOf("home", "req-new")).toEqual(origin);
  });
});

describe("keys from outside", () => {
  it("a flood of strangers' event ids expires, and crafted keys do not stop the wrap-around", () => {
    const db = routerDb();
    const table = seenTable(db);
    const clock = { t: T0 };
    const seen = new SeenEvents(db, DAY, () => clock.t);
    const crafted = [
      "",
      "\u0000",
      "\uffff\uffff\uffff",
      "\u{10ffff}",
      "\ud800", // a lone surrogate: stored as U+FFFD, read back as such for the cursor
      "x".repeat(10_000),
      "42",
      "'; DROP TABLE seen_events; --",
    ];
    const flood = Array.from({ length: 3 * SWEEP_CHUNK }, (_, i) => `telegram:m:${(i * 2654435761) % 1e9}`);
    for (const key of [...crafted, ...flood]) seen.checkAndRemember([key]);
    expect(table.count()).toBe(crafted.length + flood.length);
    // A day and two passes later, with a message a minute: all of them are gone.
    const until = T0 + DAY + 2 * HOUR + 2 * MINUTE;
    let n = 0;
    while (clock.t < until) {
      clock.t += MINUTE;
      seen.seenWithin([`probe-${n++}`]);
    }
    expect(table.count()).toBe(0);
    // And the walk still works on what comes next, the empty key included.
    expect(seen.checkAndRemember(["", "after"])).toBe(false);
    expect(seen.seenWithin([""])).toBe(true);
    const later = clock.t + DAY + 2 * HOUR + 2 * MINUTE;
    while (clock.t < later) {
      clock.t += MINUTE;
      seen.seenWithin([`probe-${n++}`]);
    }
    expect(table.count()).toBe(0);
  });
});
