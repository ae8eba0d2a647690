import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openDatabase } from "../src/sqlite.ts";
import { CheckpointThread } from "../src/wal-checkpoint-thread.ts";
import { WalCheckpoints } from "../src/wal-checkpoints.ts";

// The WAL checkpointed on a timer, not inside a commit (router.db and the host's state.db): on this
// thread until a tick finds the database under write load, then on the process's one worker thread,
// with a connection of its own per file; back on this thread if the worker fails.

const dir = makeTempDir("wal-checkpoints-");
afterAll(dir.remove);

const migrations = ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"];
let files = 0;

function open() {
  const path = join(dir.path, `t${files++}.db`);
  const db = openDatabase(path, { migrations, synchronous: "FULL" });
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  let rows = 0;
  // A row a page: 3,000 rows are past the 1,000 WAL pages that used to checkpoint inside a commit.
  const write = (count: number) => {
    db.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(`row-${rows++}-${"x".repeat(1000)}`);
    })();
  };
  const { logger, lines } = createTestLogger("warn");
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
  it("an idle or lightly written database checkpoints here; a tick under load starts the worker, which then checkpoints while commits go on; TRUNCATE once idle; closes cleanly", async () => {
    const { db, write, logger, lines, size, count, rows } = open();
    const worker = new CheckpointThread();
    let started = 0;
    const checkpoints = new WalCheckpoints(db, {
      intervalMs: HOUR,
      logger,
      startWorkerAtFrames: 1000,
      worker: () => {
        started++;
        return worker;
      },
    });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    // Lightly written, then idle: every checkpoint here, and no worker.
    for (const n of [20, 20, 0, 0, 500, 0]) {
      write(n);
      await checkpoints.tick();
    }
    expect(checkpoints.stats).toMatchObject({ passive: 6, truncate: 2, onMainThread: 8, tails: 0 });
    expect(size("-wal")).toBe(0);
    expect(started).toBe(0);
    expect(checkpoints.onWorker).toBe(false);

    // Under load: a tick finds 1,000 new frames or more (SQLite would have checkpointed inside a commit).
    write(3000);
    expect(size("-wal")).toBeGreaterThan(1000 * 4096); // nothing checkpointed inside the commits
    await checkpoints.tick(); // that checkpoint still ran here; the next ones run on the worker
    expect(checkpoints.stats.onMainThread).toBe(9);
    expect(started).toBe(1);
    expect(checkpoints.onWorker).toBe(true);
    write(3000);
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
    expect(checkpoints.stats.tails).toBe(1);
    write(1);
    await checkpoints.tick(); // the commit since: PASSIVE again
    expect((checkpoints as unknown as { lastLog: number }).lastLog).toBeLessThan(100);
    await checkpoints.tick(); // idle for a tick: TRUNCATE, on the worker
    expect(size("-wal")).toBe(0);
    expect(checkpoints.stats).toMatchObject({ passive: 10, truncate: 3, onMainThread: 9, tails: 3 });
    await checkpoints.tick(); // still idle: nothing more to truncate
    expect(checkpoints.stats.truncate).toBe(3);
    expect(started).toBe(1); // it stays
    expect(count()).toBe(rows());

    write(10);
    await checkpoints.stop();
    await checkpoints.stop(); // twice is harmless
    db.close(); // the last connection: it checkpoints and removes the WAL, the worker's is closed
    expect(existsSync(`${db.name}-wal`)).toBe(false);
    expect(lines()).toEqual([]);
    await worker.close();
  });

  it("two databases under load share the process's one worker, each with its own connection there", async () => {
    const a = open();
    const b = open();
    const options = { intervalMs: HOUR, startWorkerAtFrames: 100 };
    const first = new WalCheckpoints(a.db, { ...options, logger: a.logger });
    const second = new WalCheckpoints(b.db, { ...options, logger: b.logger });
    a.write(300);
    b.write(300);
    await Promise.all([first.tick(), second.tick()]);
    expect(threadOf(first)).toBeInstanceOf(CheckpointThread);
    expect(threadOf(second)).toBe(threadOf(first));

    a.write(500);
    b.write(700);
    const [beforeA, beforeB] = [a.size(), b.size()];
    await Promise.all([first.tick(), second.tick()]); // both on the worker at once
    expect(a.size()).toBeGreaterThan(beforeA + 500 * 4096);
    expect(b.size()).toBeGreaterThan(beforeB + 700 * 4096);
    expect(first.stats.tails + second.stats.tails).toBe(2);

    // One closes: its connection in the worker goes, the other's stays.
    a.write(5);
    await first.stop();
    a.db.close();
    expect(existsSync(`${a.path}-wal`)).toBe(false);
    b.write(5);
    await second.tick();
    await second.tick(); // idle: TRUNCATE on the worker
    expect(b.size("-wal")).toBe(0);
    expect(second.stats.onMainThread).toBe(1); // only the tick that started the worker
    await second.stop();
    b.db.close();
    expect(existsSync(`${b.path}-wal`)).toBe(false);
    expect([...a.lines(), ...b.lines()]).toEqual([]);
  });

  it("a worker that dies: logged once, the next checkpoints run on the main thread", async () => {
    const { db, write, logger, lines, size } = open();
    const worker = new CheckpointThread();
    const checkpoints = new WalCheckpoints(db, {
      intervalMs: HOUR,
      logger,
      startWorkerAtFrames: 1,
      worker: () => worker,
    });
    try {
      write(1);
      await checkpoints.tick(); // starts the worker
      write(1);
      await checkpoints.tick();
      expect(checkpoints.stats).toMatchObject({ passive: 2, onMainThread: 1, tails: 1 });
      write(300);
      // As a crash would: the thread ends without being closed.
      const thread = threadOf(checkpoints) as unknown as { worker: Worker };
      await thread.worker.terminate();
      const before = size();
      await checkpoints.tick();
      expect(size()).toBeGreaterThan(before + 300 * 4096);
      await checkpoints.tick(); // idle: TRUNCATE, here too
      expect(size("-wal")).toBe(0);
      expect(checkpoints.stats).toMatchObject({ passive: 4, truncate: 1, onMainThread: 4 });
      expect(lines().map((line) => line.msg)).toEqual([
        "WAL checkpoint thread stopped; checkpointing on the main thread",
      ]);
    } finally {
      await checkpoints.stop();
      db.close();
    }
  });

  it("a worker that cannot start (its driver missing): its first checkpoint runs here, logged once", async () => {
    const { db, write, logger, lines, size } = open();
    const driverPath = join(dir.path, "no-such-driver.js");
    const checkpoints = new WalCheckpoints(db, {
      intervalMs: HOUR,
      logger,
      startWorkerAtFrames: 1,
      worker: () => new CheckpointThread({ driverPath }),
    });
    try {
      write(1);
      await checkpoints.tick(); // here; starts the worker
      write(300);
      await checkpoints.tick();
      expect(size()).toBeGreaterThan(300 * 4096);
      expect(checkpoints.stats).toMatchObject({ passive: 2, onMainThread: 2, tails: 0 });
      expect(lines()).toHaveLength(1);
      expect(lines()[0]?.reason).toContain("no-such-driver.js");
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
