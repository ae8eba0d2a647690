import { randomUUID } from "node:crypto";
import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { ExpiringRows } from "../storage/expiring-rows.ts";
import { newToken, tokenHash } from "./secret-token.ts";

// Console sign-ins: the cookie holds a random token, router.db only its hash, so sessions survive a
// restart and a copy of the database signs nobody in. Whoever holds live pages is told when
// sessions end (sign-out, `/console logout-all`), so they close at once.

export const CONSOLE_SESSIONS_MIGRATION = `
  CREATE TABLE console_sessions (
    token_hash TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX console_sessions_user ON console_sessions (user_id);
  CREATE INDEX console_sessions_at ON console_sessions (at);`;

export interface ConsoleSession {
  id: string;
  userId: string;
  expiresAt: number;
}

export class ConsoleSessions {
  private readonly sql: PreparedStatements;
  private readonly expiring: ExpiringRows;
  private readonly listeners = new Set<(ids: readonly string[]) => void>();

  constructor(
    db: SqliteDatabase,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
    this.expiring = new ExpiringRows(db, "console_sessions", ttlMs, now);
  }

  static inMemory(ttlMs: number, now: () => number): ConsoleSessions {
    return new ConsoleSessions(
      openDatabase(":memory:", { migrations: [CONSOLE_SESSIONS_MIGRATION] }),
      ttlMs,
      now,
    );
  }

  /** Signs `userId` in: the token goes in the cookie and is not kept. */
  start(userId: string): { token: string; session: ConsoleSession } {
    this.expiring.sweepIfDue();
    const token = newToken();
    const id = randomUUID();
    const at = this.now();
    this.sql
      .sql("INSERT INTO console_sessions (token_hash, id, user_id, at) VALUES (?, ?, ?, ?)")
      .run(tokenHash(token), id, userId, at);
    return { token, session: { id, userId, expiresAt: at + this.ttlMs } };
  }

  /** The live session a cookie's token belongs to. */
  find(token: string): ConsoleSession | undefined {
    const row = this.sql
      .sql("SELECT id, user_id, at FROM console_sessions WHERE token_hash = ?")
      .get(tokenHash(token)) as { id: string; user_id: string; at: number } | undefined;
    return row ? this.live(row) : undefined;
  }

  isLive(id: string): boolean {
    const row = this.sql.sql("SELECT id, user_id, at FROM console_sessions WHERE id = ?").get(id) as
      | { id: string; user_id: string; at: number }
      | undefined;
    return row !== undefined && this.live(row) !== undefined;
  }

  /** Ends one session (signing out of one browser). */
  end(id: string): void {
    if (this.sql.sql("DELETE FROM console_sessions WHERE id = ?").run(id).changes > 0) this.tell([id]);
  }

  /** Ends every session of `userId`; returns how many there were. */
  endAllFor(userId: string): number {
    const ids = (
      this.sql.sql("SELECT id FROM console_sessions WHERE user_id = ?").all(userId) as Array<{ id: string }>
    ).map((row) => row.id);
    this.sql.sql("DELETE FROM console_sessions WHERE user_id = ?").run(userId);
    if (ids.length > 0) this.tell(ids);
    return ids.length;
  }

  /** Told the ids of sessions that ended; returns the unsubscribe function. */
  onEnded(listener: (ids: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private live(row: { id: string; user_id: string; at: number }): ConsoleSession | undefined {
    const expiresAt = row.at + this.ttlMs;
    return this.now() < expiresAt ? { id: row.id, userId: row.user_id, expiresAt } : undefined;
  }

  private tell(ids: readonly string[]): void {
    for (const listener of this.listeners) listener(ids);
  }
}
