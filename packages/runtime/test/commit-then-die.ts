import { BackgroundSyncCommit } from "../src/background-sync-commit.ts";
import { createLogger } from "../src/logger.ts";
import { openDatabase } from "../src/sqlite.ts";

// Started by background-sync-commit.test.ts: commits one row the way the host's outbox does, and is
// killed (SIGKILL, no exit handlers, no close) right after the commit returns, before its background
// flush can even start. `node commit-then-die.js <db> <value>`.

const [path, value] = process.argv.slice(2) as [string, string];
const db = openDatabase(path, { migrations: ["CREATE TABLE t (v TEXT NOT NULL)"], synchronous: "FULL" });
const commits = new BackgroundSyncCommit(db, createLogger({ level: "silent" }));
const insert = db.transaction((v: string) => db.prepare("INSERT INTO t (v) VALUES (?)").run(v));
commits.commit(() => insert(value));
process.kill(process.pid, "SIGKILL");
