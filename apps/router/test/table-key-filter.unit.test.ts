import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";
import { fcParams } from "@phonework/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
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
const dir = mkdtempSync(join(tmpdir(), "table-key-filter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
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
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 2 * HOUR }),
        fc.integer({ min: 0, max: 9 * DAY }),
      )
      .map((ms) => ({ kind: "advance" as const, ms })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "prune" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "pruneRolledBack" as const }) },
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
      fcParams({ numRuns: 25 }),
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
      // Ten days of 250 new keys an hour: ~6,000 rows live at any time (the TTL's worth).
      for (let hour = 0; hour < 240; hour++) {
        const batch = Array.from({ length: 250 }, (_, i) => `inbox:mem:m:c:${hour}-${i}`);
        expect(world.seen.seenWithin(batch.slice(0, 1))).toBe(false); // also sweeps, when due
        await world.turn.run(() => world.seen.rememberAll(batch));
        world.now += HOUR + 1;
        peak = Math.max(peak, filter.bytes);
        if (hour === 47) expect(filter.layerCount).toBeGreaterThan(1);
      }
      const rows = world.db.prepare("SELECT count(*) FROM seen_events").pluck().get() as number;
      expect(rows).toBeLessThanOrEqual(26 * 250);
      // Bounded by the rows a TTL holds (2 bytes a key, a few times over while layers fill), not by
      // the 60,000 keys written over the ten days.
      expect(peak).toBeLessThan(rows * 2 * 6);
      expect(filter.layerCount).toBeLessThanOrEqual(4);
      // Nothing written for a TTL and a sweep: every layer is gone, back to a fresh filter's size.
      world.now += SEEN_TTL + HOUR + 1;
      expect(world.seen.seenWithin(["inbox:mem:m:c:0-0"])).toBe(false);
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
        const write = new RegExp(
          `\\b(INSERT( OR [A-Z]+)? INTO|REPLACE INTO|UPDATE( OR [A-Z]+)?)\\s+${table}\\b`,
        );
        if (write.test(text) && file !== owner) writers.push(`${file} writes ${table}`);
      }
    }
    expect(writers).toEqual([]);
    expect(files).toContain(owners.delivered); // the scan looked where the stores are
  });
});
