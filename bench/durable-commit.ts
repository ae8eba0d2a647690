import { join } from "node:path";
import { openDatabase } from "../packages/runtime/src/sqlite.ts";
import type { Cleanup } from "./cleanup.ts";
import { percentile, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// The floor under a forwarded answer: the host commits it to its outbox with synchronous=FULL
// (an fsync) before sending it. Measured on the same disk the rig's DATA_DIR uses, so the
// round-trip ratios can be read against what the disk alone costs.

const COMMITS = 300;

export function measureDurableCommitMs(cleanup: Cleanup): number {
  const db = openDatabase(join(tempDir(cleanup, "commit"), "commit.db"), {
    migrations: ["CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"],
    synchronous: "FULL",
  });
  cleanup.add(() => db.close());
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  const body = "x".repeat(300);
  const latencies: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const started = performance.now();
    insert.run(body);
    latencies.push(performance.now() - started);
  }
  return percentile(sortedCopy(latencies), 50);
}
