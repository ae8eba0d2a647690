import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { openDatabase } from "../src/sqlite.ts";
import { WalCheckpoints } from "../src/wal-checkpoints.ts";

// The WAL checkpointed on a timer, not inside a commit (router.db and the host's state.db).

const dir = mkdtempSync(join(tmpdir(), "wal-checkpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openPair() {
  const path = join(dir, "t.db");
  const migrations = ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"];
  const db = openDatabase(path, { migrations, synchronous: "FULL" });
  // A second connection, as a reader of the file would hold one.
  const reader = openDatabase(path, { migrations });
  return { db, reader, path };
}

describe("WalCheckpoints", () => {
  it("turns SQLite's checkpoint-in-a-commit off; checkpoints PASSIVE while written to, TRUNCATE once idle", () => {
    const { db, reader, path } = openPair();
    const checkpoints = new WalCheckpoints(db, {
      intervalMs: 3_600_000,
      logger: createLogger({ level: "silent" }),
    });
    try {
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      for (let i = 0; i < 3000; i++) insert.run(`row-${i}`); // past the 1,000 pages that used to checkpoint
      reader.close(); // a reader pinning the WAL would make TRUNCATE wait
      const wal = `${path}-wal`;
      expect(statSync(wal).size).toBeGreaterThan(1000 * 4096); // nothing checkpointed inside the commits
      checkpoints.tick(); // written since: PASSIVE
      expect(checkpoints.stats).toEqual({ passive: 1, truncate: 0 });
      checkpoints.tick(); // idle for a tick: TRUNCATE
      expect(checkpoints.stats.truncate).toBe(1);
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
      checkpoints.tick(); // still idle: nothing more to truncate
      expect(checkpoints.stats.truncate).toBe(1);
      expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 3000 });
    } finally {
      checkpoints.stop();
    }
  });
});
