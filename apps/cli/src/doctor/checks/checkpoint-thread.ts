import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointThread, openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { type Check, ok, warn } from "./check.ts";

// Under write load, the router and the host checkpoint their database's WAL on a worker thread that
// loads better-sqlite3 by itself (the runtime's wal-checkpoint-thread.ts); if it cannot, they
// checkpoint on the main thread, which then holds each message for up to ~100 ms a second. Here that
// thread is started against a database in a temporary directory and runs one checkpoint, so an
// installed package whose worker cannot find its driver says so before any load does.

const TITLE = "checkpoints";

export interface CheckpointThreadCheckOptions {
  /** better-sqlite3's entry file for the thread; the runtime's by default. */
  driverPath?: string;
  timeoutMs?: number;
}

export async function checkCheckpointThread(options: CheckpointThreadCheckOptions = {}): Promise<Check> {
  const dir = mkdtempSync(join(tmpdir(), "phonework-doctor-"));
  let db: SqliteDatabase | undefined;
  let thread: CheckpointThread | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const path = join(dir, "checkpoint.db");
    db = openDatabase(path, { migrations: ["CREATE TABLE t (v TEXT)"] });
    db.pragma("wal_autocheckpoint = 0");
    db.prepare("INSERT INTO t (v) VALUES ('doctor')").run();
    thread = new CheckpointThread(options.driverPath ? { driverPath: options.driverPath } : {});
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no answer in time")), options.timeoutMs ?? 10_000);
    });
    const row = await Promise.race([thread.checkpoint({ path, synchronous: 1 }, "PASSIVE"), late]);
    if (row.busy !== 0 || row.log === 0 || row.checkpointed !== row.log)
      return onMainThread(`the test checkpoint copied ${row.checkpointed} of ${row.log} WAL frames`);
    return ok(
      TITLE,
      "off the main thread (a worker thread loaded better-sqlite3 and checkpointed a test database)",
    );
  } catch (error) {
    return onMainThread(oneLineReason(error));
  } finally {
    clearTimeout(timer);
    await thread?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function onMainThread(reason: string): Check {
  return warn(
    TITLE,
    `the checkpoint worker thread failed (${reason}): under load, WAL checkpoints will run on the main thread and delay messages`,
    "reinstall the PhoneWork package (npm install -g ./phonework-<version>.tgz) so that its better-sqlite3 is installed beside it",
  );
}

function oneLineReason(error: unknown): string {
  const message = (error as Error)?.message || String(error) || "the thread is gone";
  return message.split("\n")[0] ?? message;
}
