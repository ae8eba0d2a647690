import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledScript, spawnProcess, waitFor } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { BackgroundSyncCommit } from "../src/background-sync-commit.ts";
import { createLogger } from "../src/logger.ts";
import { openDatabase } from "../src/sqlite.ts";

// The host outbox's commit: NORMAL (durable once the process has written it), then the WAL flushed
// beside the event loop; every other commit keeps the database's own synchronous=FULL.

const dir = mkdtempSync(join(tmpdir(), "background-sync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = createLogger({ level: "silent" });
const FULL = 2;

function open(name: string) {
  const db = openDatabase(join(dir, name), {
    migrations: ["CREATE TABLE t (v TEXT NOT NULL)"],
    synchronous: "FULL",
  });
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  return {
    db,
    insertAll: db.transaction((values: string[]) => {
      for (const v of values) insert.run(v);
    }),
  };
}

describe("BackgroundSyncCommit", () => {
  it("commits at once, flushes the WAL in the background, and leaves the connection at FULL", async () => {
    const { db, insertAll } = open("a.db");
    const commits = new BackgroundSyncCommit(db, silent);
    commits.commit(() => insertAll(["one", "two"]));
    commits.commit(() => insertAll(["three"])); // same turn: one flush covers both
    expect(db.pragma("synchronous", { simple: true })).toBe(FULL);
    const reader = openDatabase(join(dir, "a.db"), { migrations: ["CREATE TABLE t (v TEXT NOT NULL)"] });
    expect(reader.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 3 }); // committed, visible
    reader.close();
    expect(commits.stats).toEqual({ commits: 2, flushes: 0 }); // nothing flushed inside the caller's turn
    await waitFor(() => commits.stats.flushes === 1, { intervalMs: 5, message: "the first flush" });
    commits.commit(() => insertAll(["four"]));
    await waitFor(() => commits.stats.flushes === 2, { intervalMs: 5, message: "the second flush" }); // a commit after a flush gets its own
    commits.close();
    db.close();
  });

  it("inside a caller's transaction it only runs: that transaction commits at FULL", () => {
    const { db, insertAll } = open("b.db");
    const commits = new BackgroundSyncCommit(db, silent);
    const outer = db.transaction(() => {
      commits.commit(() => insertAll(["inner"]));
      expect(db.pragma("synchronous", { simple: true })).toBe(FULL);
    });
    outer();
    expect(commits.stats.commits).toBe(0); // not made NORMAL, no background flush of its own
    expect(db.prepare("SELECT v FROM t").all()).toEqual([{ v: "inner" }]);
    commits.close();
    db.close();
  });

  it("a process killed right after the commit, before any flush, still has the row", async () => {
    const path = join(dir, "killed.db");
    const script = await bundledScript(join(import.meta.dirname, "commit-then-die.ts"));
    const child = spawnProcess(process.execPath, [script, path, "survives"]);
    const exit = await child.exited;
    expect(exit.signal).toBe("SIGKILL");
    const db = openDatabase(path, { migrations: ["CREATE TABLE t (v TEXT NOT NULL)"] });
    expect(db.prepare("SELECT v FROM t").all()).toEqual([{ v: "survives" }]);
    db.close();
  });
});
