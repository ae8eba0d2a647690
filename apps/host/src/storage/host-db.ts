import { openDatabase, type SqliteDatabase } from "@phonework/runtime";

// The host's SQLite file. synchronous=FULL because the outbox promises that what it accepted
// survives a crash or a power cut. Each feature owns its tables' migrations; the composition root
// hands them in, in the order they were first released (see host-migrations.ts).

export function openHostDatabase(path: string, migrations: readonly string[]): SqliteDatabase {
  return openDatabase(path, { migrations: [...migrations], synchronous: "FULL" });
}
