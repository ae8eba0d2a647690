import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { ExpiringRows } from "../storage/expiring-rows.ts";
import { newToken, tokenHash } from "./secret-token.ts";

// One-time console login links (`/console` in chat). A code works once: redeeming it deletes it,
// whether or not it was still valid, so a link that leaked (a forwarded message, a proxy log) is
// worth nothing after its owner used it.

export const CONSOLE_LINKS_MIGRATION = `
  CREATE TABLE console_links (
    code_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX console_links_at ON console_links (at);`;

export class LoginLinks {
  private readonly sql: PreparedStatements;
  private readonly expiring: ExpiringRows;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
    this.expiring = new ExpiringRows(db, "console_links", ttlMs, now);
  }

  static inMemory(ttlMs: number, now: () => number): LoginLinks {
    return new LoginLinks(openDatabase(":memory:", { migrations: [CONSOLE_LINKS_MIGRATION] }), ttlMs, now);
  }

  /** A new code for `userId`; only its hash is kept. */
  create(userId: string): { code: string; expiresAt: number } {
    this.expiring.sweepIfDue();
    const code = newToken();
    const at = this.now();
    this.sql
      .sql("INSERT INTO console_links (code_hash, user_id, at) VALUES (?, ?, ?)")
      .run(tokenHash(code), userId, at);
    return { code, expiresAt: at + this.ttlMs };
  }

  /** Uses the code up, valid or not (one tried too often: see LoginCodeAttempts). */
  burn(code: string): void {
    this.sql.sql("DELETE FROM console_links WHERE code_hash = ?").run(tokenHash(code));
  }

  /** The user the code was made for, if it is still valid; either way the code is used up. */
  redeem(code: string): string | undefined {
    const hash = tokenHash(code);
    return this.db.transaction(() => {
      const row = this.sql.sql("SELECT user_id, at FROM console_links WHERE code_hash = ?").get(hash) as
        | { user_id: string; at: number }
        | undefined;
      if (!row) return undefined;
      this.sql.sql("DELETE FROM console_links WHERE code_hash = ?").run(hash);
      return this.now() - row.at < this.ttlMs ? row.user_id : undefined;
    })();
  }
}
