import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { ConsoleMessage } from "./console-frames.ts";

// The console chat's history in router.db (`console_messages`), so a restart does not empty it.
// The feed keeps the bound (newest messages per user) and tells this store what it dropped; a
// message costs one prepared insert, plus a delete for each older one it pushes out.

export const CONSOLE_MESSAGES_MIGRATION = `
  CREATE TABLE console_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (user_id, id)
  );`;

export class ConsoleHistory {
  private readonly sql: PreparedStatements;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new PreparedStatements(db);
  }

  static inMemory(): ConsoleHistory {
    return new ConsoleHistory(openDatabase(":memory:", { migrations: [CONSOLE_MESSAGES_MIGRATION] }));
  }

  /** The user's newest `limit` messages, oldest first (a row that no longer parses is skipped). */
  load(userId: string, limit: number): ConsoleMessage[] {
    const rows = this.sql
      .sql("SELECT body FROM console_messages WHERE user_id = ? ORDER BY seq DESC LIMIT ?")
      .all(userId, limit) as { body: string }[];
    const messages: ConsoleMessage[] = [];
    for (const { body } of rows.reverse()) {
      const parsed = ConsoleMessage.safeParse(safeJson(body));
      if (parsed.success) messages.push(parsed.data);
    }
    return messages;
  }

  /** Stores a new message (or a changed one, keeping its place) and forgets the ones `dropped`. */
  save(userId: string, message: ConsoleMessage, dropped: readonly string[] = []): void {
    const write = () => {
      this.sql
        .sql(
          `INSERT INTO console_messages (user_id, id, body) VALUES (?, ?, ?)
           ON CONFLICT (user_id, id) DO UPDATE SET body = excluded.body`,
        )
        .run(userId, message.id, JSON.stringify(message));
      this.forget(userId, dropped);
    };
    if (dropped.length === 0) write();
    else this.db.transaction(write)();
  }

  drop(userId: string, ids: readonly string[]): void {
    this.db.transaction(() => this.forget(userId, ids))();
  }

  private forget(userId: string, ids: readonly string[]): void {
    for (const id of ids)
      this.sql.sql("DELETE FROM console_messages WHERE user_id = ? AND id = ?").run(userId, id);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
