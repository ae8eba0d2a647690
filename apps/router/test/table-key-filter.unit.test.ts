import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase, type SqliteStatement } from "@phonework/runtime";
import { fcParams, makeTempDir } from "@phonework/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
import { ExpiringRows } from "../src/storage/expiring-rows.ts";
import { hashKey } from "../src/storage/key-hash.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";
import { TableKeyFilter } from "../src/storage/table-key-filter.ts";
import { TurnCommit } from "../src/storage/turn-commit.ts";

// The filter in front of the dedup tables (seen_events, delivered) never says "absent" for a key
// the table holds — through writes, writes rolled back, sweeps (one rolled back too), restarts and
// keys SQLite folds together — so seenWithin and begin answer exactly as the SELECT alone did; and
// its memory goes with the rows it covered.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEEN_TTL = DAY;
const DELIVERED_TTL = 7 * DAY;
const { path: dir, remove } = makeTempDir("table-key-filter-");
afterAll(remove);
let files = 0;

/** Keys that are hard on an equality: surrogates SQLite stores as U+FFFD, NUL, empty, long, astral. */
const HOSTILE = [
  "a\uD800",
  "a\uDBFF",
  "a\uFFFD",
  "\uDC00x",
  "😀",
  "\uD83D",
  "",
  "a\0b",
  "a",
  "k".repeat(5000),
];
const key = fc.oneof(
  fc.constantFrom(...HOSTILE, "inbox:mem:m:c1:1", "inbox:mem:m:c1:2", "home/d-1", "home/d-2"),
  fc.string({ unit: "binary", maxLength: 12 }),
);
const keys = fc.array(key, { minLength: 1, maxLength: 3 });

type Command =
  | { kind: "seen"; keys: string[] }
  | { kind: "seenRolledBack"; keys: string[] }
  | { kind: "check"; keys: string[] }
  | { kind: "forget"; keys: string[] }
  | { kind: "deliver"; key: string }
  | { kind: "deliverCommitFails"; key: string }
  | { kind: "bulk"; count: number; prefix: string }
  | { kind: "advance"; ms: number }
  | { kind: "prune" }
  | { kind: "lookupsRolledBack"; keys: string[] }
  | { kind: "pruneRolledBack" }
  | { kind: "reopen" };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: keys.map((k) => ({ kind: "seen" as const, keys: k })) },
  { weight: 2, arbitrary: keys.map((k) => ({ kind: "seenRolledBack" as const, keys: k })) },
  { weight: 2, arbitrary: keys.map((k) => ({ kind: "check" as const, keys: k })) },
  { weight: 1, arbitrary: keys.map((k) => ({ kind: "forget" as const, keys: k })) },
  { weight: 4, arbitrary: key.map((k) => ({ kind: "deliver" as const, key: k })) },
  { weight: 1, arbitrary: key.map((k) => ({ kind: "deliverCommitFails" as const, key: k })) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("bulk" as const),
      count: fc.integer({ min: 500, max: 2500 }),
      prefix: fc.string({ maxLength: 4 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 1000 }) },
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 2 * HOUR }) },
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 9 * DAY }) },
        // The clock set back (NTP, a VM restored): nothing may count on time moving forward.
        { weight: 1, arbitrary: fc.integer({ min: -3 * DAY, max: 0 }) },
      )
      .map((ms) => ({ kind: "advance" as const, ms })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "prune" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "pruneRolledBack" as const }) },
  { weight: 2, arbitrary: keys.map((k) => ({ kind: "lookupsRolledBack" as const, keys: k })) },
  { weight: 1, arbitrary: fc.constant({ kind: "reopen" as const }) },
);

/** A router's two dedup stores on one router.db, and a second DeliveredStore (no claims in memory). */
class World {
  now = 1_700_000_000_000;
  db!: SqliteDatabase;
  seen!: SeenEvents;
  delivered!: DeliveredStore;
  /** Answers from the table alone: its claims and unsettled records are never in the way. */
  deliveredProbe!: DeliveredStore;
  private readonly clock = () => this.now;

  constructor(private readonly path: string) {
    this.open();
  }

  open(): void {
    this.db = openRouterDatabase(this.path);
    this.statements = new Map();
    this.seen = new SeenEvents(this.db, SEEN_TTL, this.clock);
    this.delivered = new DeliveredStore(this.db, DELIVERED_TTL, this.clock);
    this.deliveredProbe = new DeliveredStore(this.db, DELIVERED_TTL, this.clock);
  }

  close(): void {
    this.delivered.flush();
    this.db.close();
  }

  get turn(): TurnCommit {
    return TurnCommit.of(this.db);
  }

  /** What seenWithin answered before the filter: the SELECT alone. */
  selectSeen(key: string): boolean {
    const at = this.sql("SELECT at FROM seen_events WHERE key = ?").pluck().get(key) as number | undefined;
    return at !== undefined && this.now - at < SEEN_TTL;
  }

  selectDelivered(key: string): { message_id: string | null } | undefined {
    return this.sql("SELECT message_id FROM delivered WHERE key = ?").get(key) as
      | { message_id: string | null }
      | undefined;
  }

  private statements = new Map<string, SqliteStatement>();
  /** The test's own statements, prepared once per connection. */
  private sql(text: string): SqliteStatement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** Every key the tables hold is a "maybe" in their filters. */
  assertCovered(): void {
    for (const [table, filter] of [
      ["seen_events", TableKeyFilter.of(this.db, "seen_events")],
      ["delivered", TableKeyFilter.of(this.db, "delivered")],
    ] as const) {
      const held = this.sql(`SELECT key FROM ${table}`).pluck().all() as string[];
      const missed = held.filter((k) => !filter.mayHave(k));
      expect(missed, `${table} keys the filter calls absent`).toEqual([]);
    }
  }

  /** seenWithin and begin answer as the SELECT does, for these keys. */
  assertAnswers(probe: string[]): void {
    for (const k of probe) {
      expect(this.seen.seenWithin([k]), `seenWithin ${JSON.stringify(k.slice(0, 20))}`).toBe(
        this.selectSeen(k),
      );
      const start = this.deliveredProbe.begin(k); // first: it may sweep, and the SELECT must see that
      const row = this.selectDelivered(k);
      if (start.state === "new") this.deliveredProbe.abandon(k);
      expect(start, `begin ${JSON.stringify(k.slice(0, 20))}`).toEqual(
        row ? { state: "delivered", messageId: row.message_id ?? undefined } : { state: "new" },
      );
    }
  }
}

/** A bare table keyed as the dedup tables are, in memory, closed after `test`. */
function withKeyTable(test: (db: SqliteDatabase) => void): void {
  const db = openDatabase(":memory:", {
    migrations: ["CREATE TABLE t (key TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID"],
  });
  try {
    test(db);
  } finally {
    db.close();
  }
}

async function run(world: World, step: Command, touched: Set<string>): Promise<void> {
  switch (step.kind) {
    case "seen": {
      // As the intake does: checked, then remembered in the turn's commit.
      const expected = step.keys.some((k) => world.selectSeen(k));
      expect(world.seen.seenWithin(step.keys)).toBe(expected);
      if (!expected) await world.turn.run(() => world.seen.rememberAll(step.keys));
      break;
    }
    case "seenRolledBack":
      await expect(
        world.turn.run(() => {
          world.seen.rememberAll(step.keys);
          throw new Error("the store failed");
        }),
      ).rejects.toThrow("the store failed");
      break;
    case "check": {
      const expected = step.keys.some((k) => world.selectSeen(k));
      expect(world.seen.checkAndRemember(step.keys)).toBe(expected);
      break;
    }
    case "forget":
      world.seen.forget(step.keys);
      break;
    case "deliver": {
      const start = world.delivered.begin(step.key);
      if (start.state === "new") await world.delivered.finish(step.key, `msg-${world.now}`);
      break;
    }
    case "deliverCommitFails": {
      const start = world.delivered.begin(step.key);
      if (start.state !== "new") break;
      const recorded = world.delivered.finish(step.key, "lost");
      // A write in the same commit that ends the transaction (as a full disk does): nothing is durable.
      const failing = world.turn.run(() => {
        world.db.exec("ROLLBACK");
        throw new Error("disk full");
      });
      await expect(recorded).rejects.toThrow();
      await expect(failing).rejects.toThrow("disk full");
      // The claim stays in that store's memory (a resend is acked from there); reopen to forget it.
      break;
    }
    case "bulk": {
      const batch = Array.from({ length: step.count }, (_, i) => `bulk:${step.prefix}:${world.now}:${i}`);
      await world.turn.run(() => world.seen.rememberAll(batch));
      batch.slice(0, 3).forEach((k) => {
        touched.add(k);
      });
      break;
    }
    case "advance":
      world.now += step.ms;
      break;
    case "prune":
      world.seen.prune();
      break;
    case "pruneRolledBack":
      // A sweep inside a transaction that is then rolled back: the rows come back, so must their keys.
      await expect(
        world.turn.run(() => {
          world.seen.prune();
          throw new Error("undone");
        }),
      ).rejects.toThrow("undone");
      break;
    case "lookupsRolledBack":
      // Lookups (each may take a step of the sweep along the key) inside a transaction then rolled
      // back: the rows that step deleted come back.
      await expect(
        world.turn.run(() => {
          for (let i = 0; i < 5; i++) {
            world.seen.seenWithin(step.keys);
            for (const k of step.keys)
              if (world.delivered.begin(k).state === "new") world.delivered.abandon(k);
          }
          throw new Error("undone");
        }),
      ).rejects.toThrow("undone");
      break;
    case "reopen":
      world.close();
      world.open();
      break;
  }
}

describe("TableKeyFilter", () => {
  it("never calls a key the table holds absent, and the stores answer as the SELECT does", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (steps) => {
        const world = new World(join(dir, `p${files++}.db`));
        const touched = new Set<string>([...HOSTILE, "inbox:mem:m:c1:1", "home/d-1", "never"]);
        try {
          for (const step of steps) {
            if ("keys" in step) for (const k of step.keys) touched.add(k);
            if ("key" in step) touched.add(step.key);
            await run(world, step, touched);
            world.assertCovered();
            world.assertAnswers([...touched]);
          }
        } finally {
          world.close();
        }
      }),
      fcParams({ numRuns: 20 }),
    );
  });

  it("hashes what SQLite stores: lone surrogates as U+FFFD, pairs as themselves", () => {
    const of = (text: string) => {
      const out = new Int32Array(2);
      hashKey(text, 7, out);
      return [...out];
    };
    expect(of("a\uD800")).toEqual(of("a\uFFFD"));
    expect(of("a\uDBFF")).toEqual(of("a\uFFFD"));
    expect(of("\uDC00a")).toEqual(of("\uFFFDa"));
    expect(of("😀")).not.toEqual(of("\uFFFD\uFFFD"));
    expect(of("a\0b")).not.toEqual(of("a"));
  });

  it("drops its layers as the sweeps delete their rows: memory does not grow with time", async () => {
    const world = new World(join(dir, `m${files++}.db`));
    try {
      const filter = TableKeyFilter.of(world.db, "seen_events");
      const fresh = filter.bytes;
      let peak = 0;
      // Three days of 200 new keys an hour, each looked up as the intake does (which is also when the
      // sweep along the key takes its steps): ~5,000 rows live at any time (the TTL's worth).
      for (let hour = 0; hour < 72; hour++) {
        const batch = Array.from({ length: 200 }, (_, i) => `inbox:mem:m:c:${hour}-${i}`);
        for (const key of batch) {
          expect(world.seen.seenWithin([key])).toBe(false);
          world.now += HOUR / 200;
        }
        await world.turn.run(() => world.seen.rememberAll(batch));
        peak = Math.max(peak, filter.bytes);
        if (hour === 47) expect(filter.layerCount).toBeGreaterThan(1);
      }
      const rows = world.db.prepare("SELECT count(*) FROM seen_events").pluck().get() as number;
      expect(rows).toBeLessThanOrEqual(27 * 200); // a TTL and the pass that sweeps it
      // Bounded by the rows a TTL holds (2 bytes a key, a few times over while layers fill), not by
      // the 14,400 keys written over the three days.
      expect(peak).toBeLessThan(rows * 2 * 6);
      expect(filter.layerCount).toBeLessThanOrEqual(4);
      // Nothing written for a TTL, then lookups (a pass along the key, begun after the last write):
      // every layer is gone, back to a fresh filter's size.
      world.now += SEEN_TTL + HOUR + 1;
      for (let call = 0; call < 40; call++) expect(world.seen.seenWithin(["inbox:mem:m:c:0-0"])).toBe(false);
      expect(world.db.prepare("SELECT count(*) FROM seen_events").pluck().get()).toBe(0);
      expect(filter.bytes).toBe(fresh);
      expect(filter.layerCount).toBe(0);
    } finally {
      world.close();
    }
  });

  it("keeps the keys of a sweep that is rolled back: their rows come back", async () => {
    const world = new World(join(dir, `s${files++}.db`));
    try {
      world.seen.checkAndRemember(["inbox:mem:m:c1:old"]);
      world.now += SEEN_TTL + HOUR + 1;
      // The sweep deletes the row inside a transaction that then fails: the row is back.
      await expect(
        world.turn.run(() => {
          expect(world.seen.prune()).toBe(1);
          throw new Error("undone");
        }),
      ).rejects.toThrow("undone");
      expect(world.db.prepare("SELECT count(*) FROM seen_events").pluck().get()).toBe(1);
      expect(TableKeyFilter.of(world.db, "seen_events").mayHave("inbox:mem:m:c1:old")).toBe(true);
      // A sweep that commits lets the layer go.
      world.seen.prune();
      expect(TableKeyFilter.of(world.db, "seen_events").layerCount).toBe(0);
    } finally {
      world.close();
    }
  });

  it("drops a layer only for a sweep that began after its last add (a clock set back cannot fool it)", () => {
    withKeyTable((db) => {
      const filter = TableKeyFilter.of(db, "t");
      filter.add("before", 1_000);
      const mark = filter.sweepBegins();
      // Written while that sweep runs (behind its cursor, say), with an `at` the clock set back gave it.
      filter.add("during", 900);
      filter.swept(2_000, mark);
      expect(filter.mayHave("during")).toBe(true);
      // A sweep begun after it lets the layer go.
      filter.swept(2_000, filter.sweepBegins());
      expect(filter.layerCount).toBe(0);
    });
  });

  it("reports a pass along the key with its earliest step's cutoff: a clock set back mid-pass deletes less", () => {
    withKeyTable((db) => {
      const insert = db.prepare("INSERT INTO t (key, at) VALUES (?, ?)");
      for (let i = 0; i < 1100; i++) insert.run(`k-${String(i).padStart(4, "0")}`, 0);
      const heard: Array<{ cutoff: number; mark: number }> = [];
      let now = 0;
      const rows = new ExpiringRows(db, "t", SEEN_TTL, () => now, { alongKey: "key" });
      rows.listen({ sweepBegins: () => 7, swept: (cutoff, mark) => heard.push({ cutoff, mark }) });
      now = SEEN_TTL + HOUR; // every row expired
      rows.sweepIfDue(); // the first chunk goes
      now -= 2 * HOUR; // set back: to this step nothing has expired
      rows.sweepIfDue();
      now += 2 * HOUR;
      rows.sweepIfDue(); // the last chunk goes, and the pass is done
      const left = db.prepare("SELECT min(at) FROM t").pluck().get() as number;
      expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(512); // the middle chunk stayed
      expect(heard).toEqual([{ cutoff: -HOUR, mark: 7 }]);
      expect(left).toBeGreaterThan(heard[0]?.cutoff ?? 0); // what it reports as gone is gone
    });
  });

  it("keeps the keys of a pass whose step was rolled back, though its later steps commit", () => {
    withKeyTable((db) => {
      const filter = TableKeyFilter.of(db, "t");
      const insert = db.prepare("INSERT INTO t (key, at) VALUES (?, ?)");
      const write = (key: string, at: number) => {
        filter.add(key, at);
        insert.run(key, at);
      };
      for (let i = 0; i < 1100; i++) write(`k-${String(i).padStart(4, "0")}`, 0);
      let now = 0;
      const rows = new ExpiringRows(db, "t", SEEN_TTL, () => now, { alongKey: "key" });
      rows.listen(filter);
      now = SEEN_TTL + HOUR; // every row expired
      // The pass's first step runs inside a transaction that then fails: its chunk comes back.
      expect(() =>
        db.transaction(() => {
          expect(rows.sweepIfDue()?.deleted).toBe(512);
          throw new Error("undone");
        })(),
      ).toThrow("undone");
      expect(rows.sweepIfDue()?.deleted).toBe(512);
      expect(rows.sweepIfDue()?.visited).toBeLessThan(512); // the pass wraps, its last steps committed
      expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(512);
      expect(filter.mayHave("k-0000")).toBe(true); // in the table again: never "absent"
    });
  });

  it("is built from the table at open: after a restart, a redelivered id is still found", () => {
    const path = join(dir, `r${files++}.db`);
    const before = new World(path);
    before.seen.checkAndRemember(["feishu:e:1", "a\uD800"]);
    before.close();
    const after = new World(path);
    try {
      expect(after.seen.seenWithin(["feishu:e:1"])).toBe(true);
      expect(after.seen.seenWithin(["a\uDBFF"])).toBe(true); // one row for SQLite, so one for the filter
      expect(after.seen.seenWithin(["feishu:e:2"])).toBe(false);
    } finally {
      after.close();
    }
  });

  it("guards its promise: nothing in the source but their stores writes these tables", () => {
    // The filter is exact only if every write of a key goes through the table's one class (the
    // filter's header). A new writer elsewhere must add its keys to TableKeyFilter.of(db, table).
    // (SQL with the table's name spelled out; a table name built at run time is not seen here.)
    const owners: Record<string, string> = {
      seen_events: "apps/router/src/storage/seen-events.ts",
      delivered: "apps/router/src/delivery/delivered-store.ts",
    };
    const root = join(import.meta.dirname, "..", "..", "..");
    const files = ["apps", "packages"]
      .flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}/src`))
      .filter((src) => existsSync(join(root, src)))
      .flatMap((src) =>
        readdirSync(join(root, src), { recursive: true, encoding: "utf8" })
          .filter((file) => /\.tsx?$/.test(file))
          .map((file) => `${src}/${file}`),
      );
    const writers: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      for (const [table, owner] of Object.entries(owners)) {
        // Any case, the name quoted or with its schema ("main"."seen_events") too.
        const write = new RegExp(
          `\\b(INSERT(\\s+OR\\s+[A-Z]+)?\\s+INTO|REPLACE\\s+INTO|UPDATE(\\s+OR\\s+[A-Z]+)?)\\s+([\\[\`"']?main[\\]\`"']?\\.)?[\\[\`"']?${table}\\b`,
          "i",
        );
        if (write.test(text) && file !== owner) writers.push(`${file} writes ${table}`);
      }
    }
    expect(writers).toEqual([]);
    expect(files).toContain(owners.delivered); // the scan looked where the stores are
  });
});
