import { openDatabase, type SqliteDatabase } from "@phonework/runtime";

// The host's SQLite file. synchronous=FULL because what the host tells a user it did (a reminder
// set, a job's state) must survive a crash or a power cut before it says so; the outbox's own
// commits flush beside the event loop instead (delivery/outbox.ts, BackgroundSyncCommit). Each feature owns its tables' migrations; the composition root
// hands them in, in the order they were first released (see host-migrations.ts).

export function openHostDatabase(path: string, migrations: readonly string[]): SqliteDatabase {
  return openDatabase(path, { migrations: [...migrations], synchronous: "FULL" });
}
