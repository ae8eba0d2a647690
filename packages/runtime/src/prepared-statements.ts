import type { SqliteDatabase, SqliteStatement } from "./sqlite.ts";

/**
 * Each SQL text prepared once per connection and kept. Stores that run the same few statements
 * over and over (a handshake, a scheduler sweep) would otherwise prepare and free one per call —
 * wasted work, and on Node ≥ 24.19 a statement freed by the garbage collector can abort a
 * better-sqlite3 12 process (nodejs/node#65446).
 */
export class PreparedStatements {
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(private readonly db: SqliteDatabase) {}

  sql(text: string): SqliteStatement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }
}
