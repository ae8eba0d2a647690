import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openDatabase } from "../src/sqlite.ts";
import type { CheckpointThread } from "../src/wal-checkpoint-thread.ts";
import { WalCheckpoints } from "../src/wal-checkpoints.ts";

// The WAL checkpointed on a timer, not inside a commit (router.db and the host's state.db), on a
// worker thread with its own connection to the file; back on this thread if the worker fails.

const dir = mkdtempSync(join(tmpdir(), "wal-checkpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrations = ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"];
let files = 0;

function open() {
  const path = join(dir, `t${files++}.db`);
  const db = openDatabase(path, { migrations, synchronous: "FULL" });
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  let rows = 0;
  // A row a page: 3,000 rows are past the 1,000 WAL pages that used to checkpoint inside a commit.
  const write = (count: number) => {
    db.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(`row-${rows++}-${"x".repeat(1000)}`);
    })();
  };
  const lines: Array<{ msg: string; reason?: string }> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = createLogger({ level: "warn", destination, format: "json" });
  const size = (suffix = "") => (existsSync(path + suffix) ? statSync(path + suffix).size : 0);
  const count = () => (db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
  return { db, path, write, logger, lines, size, count, rows: () => rows };
}

/** Where a WalCheckpoints' checkpoints run now (private to it). */
const threadOf = (checkpoints: WalCheckpoints) =>
  (checkpoints as unknown as { thread: CheckpointThread | "main" | undefined }).thread;

/** Its timer never fires in a test: each tick is called. */
const HOUR = 3_600_000;

describe("WalCheckpoints", () => {
  it("checkpoints on the worker: PASSIVE while written to, while commits go on; TRUNCATE once idle; closes cleanly", async () => {
    const { db, write, logger, lines, size, count, rows } = open();
    const checkpoints = new WalCheckpoints(db, { intervalMs: HOUR, logger });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    await checkpoints.tick(); // starts the worker
    write(3000);
    expect(size("-wal")).toBeGreaterThan(1000 * 4096); // nothing checkpointed inside the commits
    const before = size();

    // Commits on this thread while the worker checkpoints: none fails or waits for it.
    let settled = false;
    const tick = checkpoints.tick().then(() => {
      settled = true;
    });
    let during = 0;
    while (!settled) {
      write(1);
      during++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await tick;
    expect(during).toBeGreaterThan(0);
    expect(size()).toBeGreaterThan(before + 1000 * 4096); // the frames moved into the database file

    // The frames committed while the worker copied were copied here after it (the tail), so the
    // next commit starts the WAL over: under steady writes it would otherwise only grow.
    expect(checkpoints.stats.tails).toBe(2);
    write(1);
    await checkpoints.tick(); // the commit since: PASSIVE again
    expect((checkpoints as unknown as { lastLog: number }).lastLog).toBeLessThan(100);
    await checkpoints.tick(); // idle for a tick: TRUNCATE
    expect(size("-wal")).toBe(0);
    expect(checkpoints.stats).toMatchObject({ passive: 4, truncate: 1, onMainThread: 0 });
    await checkpoints.tick(); // still idle: nothing more to truncate
    expect(checkpoints.stats.truncate).toBe(1);
    expect(count()).toBe(rows());

    write(10);
    await checkpoints.stop();
    await checkpoints.stop(); // twice is harmless
    db.close(); // the last connection: it checkpoints and removes the WAL, the worker's is gone
    expect(existsSync(`${db.name}-wal`)).toBe(false);
    expect(lines).toEqual([]);
  });

  it("a worker that dies: logged once, the next checkpoints run on the main thread", async () => {
    const { db, write, logger, lines, size } = open();
    const checkpoints = new WalCheckpoints(db, { intervalMs: HOUR, logger });
    try {
      await checkpoints.tick();
      expect(checkpoints.stats.onMainThread).toBe(0);
      write(300);
      // As a crash would: the thread ends without being closed.
      const thread = threadOf(checkpoints) as unknown as { worker: Worker };
      await thread.worker.terminate();
      const before = size();
      await checkpoints.tick();
      expect(size()).toBeGreaterThan(before + 300 * 4096);
      await checkpoints.tick(); // idle: TRUNCATE, here too
      expect(size("-wal")).toBe(0);
      expect(checkpoints.stats).toMatchObject({ passive: 3, truncate: 1, onMainThread: 3 });
      expect(lines.map((line) => line.msg)).toEqual([
        "WAL checkpoint thread stopped; checkpointing on the main thread",
      ]);
    } finally {
      await checkpoints.stop();
      db.close();
    }
  });

  it("a worker that cannot start (its driver missing): the first checkpoint already runs here", async () => {
    const { db, write, logger, lines, size } = open();
    const driverPath = join(dir, "no-such-driver.js");
    const checkpoints = new WalCheckpoints(db, { intervalMs: HOUR, logger, driverPath });
    try {
      write(300);
      await checkpoints.tick();
      expect(size()).toBeGreaterThan(300 * 4096);
      expect(checkpoints.stats).toMatchObject({ passive: 1, onMainThread: 1 });
      expect(lines).toHaveLength(1);
      expect(lines[0]?.reason).toContain("no-such-driver.js");
    } finally {
      await checkpoints.stop();
      db.close();
    }
  });

  it("a database in memory checkpoints on this thread and starts no worker", async () => {
    const db = openDatabase(":memory:", { migrations });
    const checkpoints = new WalCheckpoints(db, {
      intervalMs: HOUR,
      logger: createLogger({ level: "silent" }),
    });
    await checkpoints.tick();
    expect(threadOf(checkpoints)).toBe("main");
    await checkpoints.stop();
    db.close();
  });
});
