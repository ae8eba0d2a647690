import { dirname } from "node:path";
import Database from "better-sqlite3";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode, touchPrivateFile } from "./private-files.ts";
import { StartupError } from "./startup-error.ts";

// One SQLite file per process state, opened with the pragmas every store here needs and
// migrated forward by `PRAGMA user_version`: migration i brings the schema from version i to i+1.

export type SqliteDatabase = Database.Database;
export type SqliteStatement = Database.Statement<unknown[]>;

export interface OpenDatabaseOptions {
  /** Each entry is the SQL that moves the schema one version forward. Never edit a shipped one. */
  migrations: readonly string[];
  /** FULL: a committed row survives a power cut (outboxes); NORMAL is enough for the rest under WAL. */
  synchronous?: "NORMAL" | "FULL";
}

export class DatabaseOpenError extends StartupError {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    const reason = (cause as { code?: string; message?: string })?.message ?? String(cause);
    super(`cannot open the state database ${path}: ${reason}`, { cause });
  }
}

export function openDatabase(path: string, options: OpenDatabaseOptions): SqliteDatabase {
  let db: SqliteDatabase | undefined;
  try {
    if (path !== ":memory:" && path !== "") makePrivate(path);
    db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.pragma("busy_timeout = 5000"); // another connection holding the write lock: wait, do not fail
    db.pragma("foreign_keys = ON");
    migrate(db, options.migrations);
    return db;
  } catch (error) {
    db?.close();
    throw new DatabaseOpenError(path, error);
  }
}

/**
 * The database holds command output (its WAL most of all): owner-only. SQLite creates -wal and
 * -shm with the database file's permissions, so the file is created 0600 before SQLite opens it;
 * files left 0644 by an older version are tightened.
 */
function makePrivate(path: string): void {
  ensurePrivateDir(dirname(path));
  touchPrivateFile(path);
  for (const suffix of ["-wal", "-shm", "-journal"]) restrictMode(`${path}${suffix}`, PRIVATE_FILE_MODE);
}

function migrate(db: SqliteDatabase, migrations: readonly string[]): void {
  const current = Number(db.pragma("user_version", { simple: true }));
  if (current > migrations.length)
    throw new Error(`schema version ${current} is newer than this program knows (${migrations.length})`);
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
