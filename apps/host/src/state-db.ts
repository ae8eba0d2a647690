import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { OUTBOX_MIGRATION } from "./link/outbox.ts";
import { JOBS_MIGRATION } from "./schedule/job-store.ts";

// The host's SQLite file: the durable outbox and the scheduled jobs. synchronous=FULL because
// the outbox promises that what it accepted survives a crash or a power cut.
// Append-only: each entry moves the schema one version forward.
const HOST_MIGRATIONS = [OUTBOX_MIGRATION, JOBS_MIGRATION];

export function openHostDatabase(path: string): SqliteDatabase {
  return openDatabase(path, { migrations: HOST_MIGRATIONS, synchronous: "FULL" });
}
