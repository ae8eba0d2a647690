import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { TurnCommit } from "../src/storage/turn-commit.ts";

// The per-turn commit batcher: one commit for a turn's writes, in order, and a promise that settles
// only after the commit (what every ack waits on).

const dir = mkdtempSync(join(tmpdir(), "turn-commit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function openPair(): { db: SqliteDatabase; reader: SqliteDatabase; path: string } {
  const path = join(dir, `t${files++}.db`);
  const db = openDatabase(path, { migrations: ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"] });
  // A second connection sees only what is committed, as a restarted process would.
  const reader = openDatabase(path, {
    migrations: ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"],
  });
  return { db, reader, path };
}
const committed = (reader: SqliteDatabase) =>
  (reader.prepare("SELECT v FROM t ORDER BY id").all() as Array<{ v: string }>).map((row) => row.v);

describe("TurnCommit", () => {
  it("commits a turn's writes once, in the order queued, and settles each only after the commit", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    expect(TurnCommit.of(db)).toBe(turn); // one per connection
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const seenAtSettle: string[][] = [];
    const writes = ["a", "b", "c"].map((v) =>
      turn
        .run(() => Number(insert.run(v).lastInsertRowid))
        .then((id) => {
          seenAtSettle.push(committed(reader));
          return id;
        }),
    );
    // Queued, not written: nothing is visible, and nothing has settled.
    expect(committed(reader)).toEqual([]);
    expect(seenAtSettle).toEqual([]);
    const before = turn.stats.commits;
    expect(await Promise.all(writes)).toEqual([1, 2, 3]);
    expect(turn.stats.commits - before).toBe(1);
    // Each acknowledgement point already saw every row of its commit.
    expect(seenAtSettle).toEqual([
      ["a", "b", "c"],
      ["a", "b", "c"],
      ["a", "b", "c"],
    ]);
  });

  it("a write that throws fails alone: the others of its turn commit", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const results = await Promise.allSettled([
      turn.run(() => insert.run("x")),
      turn.run(() => {
        insert.run("half-written");
        insert.run("x"); // UNIQUE: throws, and its savepoint (with "half-written") is rolled back
      }),
      turn.run(() => insert.run("y")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(committed(reader)).toEqual(["x", "y"]);
  });

  it("a one-statement write takes no savepoint, and failing fails alone: the others of its turn commit", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const one = { oneStatement: true };
    const before = turn.stats.savepoints;
    const results = await Promise.allSettled([
      turn.run(() => insert.run("x"), one),
      turn.run(() => insert.run("x"), one), // UNIQUE: SQLite undoes this statement alone
      turn.run(() => {
        insert.run("half-written");
        insert.run("x"); // a write of several statements keeps its savepoint: rolled back whole
      }),
      turn.run(() => insert.run("y"), one),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(committed(reader)).toEqual(["x", "y"]);
    expect(turn.stats.savepoints - before).toBe(1); // the multi-statement write's only
  });

  it("a one-statement write whose error ended the transaction fails the whole batch, nothing half-committed", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const rollback = db.prepare("ROLLBACK");
    const one = { oneStatement: true };
    const results = await Promise.allSettled([
      turn.run(() => insert.run("before"), one),
      turn.run(() => {
        // What SQLite does on an I/O error or a full disk: the whole transaction is rolled back.
        rollback.run();
        throw new Error("disk I/O error");
      }, one),
      turn.run(() => insert.run("after"), one), // must not run in autocommit and be committed alone
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(committed(reader)).toEqual([]);
    expect(db.inTransaction).toBe(false);
    await turn.run(() => insert.run("next"), one);
    expect(committed(reader)).toEqual(["next"]);
  });

  it("a full disk under a write of several statements fails the batch with that error, not a savepoint's", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    // A real SQLITE_FULL: SQLite rolls the whole transaction back, savepoint and all.
    db.pragma(`max_page_count = ${Number(db.pragma("page_count", { simple: true })) + 3}`);
    const results = await Promise.allSettled([
      turn.run(() => insert.run("before")),
      turn.run(() => {
        insert.run("first of two");
        insert.run("x".repeat(200_000));
      }),
      turn.run(() => insert.run("after"), { oneStatement: true }),
    ]);
    const reasons = results.map((r) => (r.status === "rejected" ? String(r.reason) : "fulfilled"));
    expect(reasons).toEqual(Array(3).fill(expect.stringMatching(/full/)));
    expect(committed(reader)).toEqual([]);
    db.pragma("max_page_count = 1073741823");
    await turn.run(() => insert.run("next"));
    expect(committed(reader)).toEqual(["next"]);
  });

  it("a write alone in its turn that throws leaves nothing behind, and the next turn commits", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const failed = turn.run(() => {
      insert.run("half-written");
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    expect(db.inTransaction).toBe(false);
    await turn.run(() => insert.run("next"));
    expect(committed(reader)).toEqual(["next"]);
  });

  it("a failed commit settles every write of the batch as failed: no ack for any of them", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    reader.exec("BEGIN IMMEDIATE"); // another connection holds the write lock past busy_timeout
    db.pragma("busy_timeout = 0");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const results = await Promise.allSettled([
      turn.run(() => insert.run("p")),
      turn.run(() => insert.run("q")),
    ]);
    reader.exec("ROLLBACK");
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(committed(reader)).toEqual([]);
  });

  it("a write nobody waits for joins the next commit, or is committed within 50 ms on its own", async () => {
    const { db, reader } = openPair();
    const turn = TurnCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    turn.soon(
      () => insert.run("mark-1"),
      () => {},
    );
    await turn.run(() => insert.run("urgent"));
    expect(committed(reader)).toEqual(["urgent", "mark-1"]);
    const commits = turn.stats.commits;
    turn.soon(
      () => insert.run("mark-2"),
      () => {},
    );
    expect(committed(reader)).not.toContain("mark-2");
    await expect.poll(() => committed(reader), { timeout: 2000, interval: 10 }).toContain("mark-2");
    expect(turn.stats.commits).toBe(commits + 1);
  });
});
