import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { ChannelMessage } from "../platforms/platform-adapter.ts";
import { TurnCommit } from "../storage/turn-commit.ts";

// Incoming chat messages, stored before the platform is told they arrived: an adapter
// acknowledges an update only once it is here, and a message not yet handled when the router
// stopped is handled at the next start. "Handled" means answered by the router or sent on to a
// node (whose answer then finds its way back through the delivery ledger). Handled rows are kept
// a while for inspection, then pruned.

export const CHAT_INBOX_MIGRATION = `
  CREATE TABLE chat_inbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    adapter TEXT NOT NULL,
    message TEXT NOT NULL,
    at INTEGER NOT NULL,
    handled_at INTEGER
  );
  CREATE INDEX chat_inbox_unhandled ON chat_inbox (adapter, handled_at);`;

/** Each message's request key (IncomingMessage.requestKey): the same when a restart handles it again. */
export const CHAT_INBOX_REQUEST_KEY_MIGRATION = "ALTER TABLE chat_inbox ADD COLUMN request_key TEXT;";

export interface StoredMessage {
  seq: number;
  adapter: string;
  message: ChannelMessage;
  /** Absent for rows stored before request keys existed. */
  requestKey?: string;
}

const KEEP_HANDLED_MS = 86_400_000;

export class ChatInbox {
  private readonly sql: PreparedStatements;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
  }

  static inMemory(now: () => number): ChatInbox {
    return new ChatInbox(
      openDatabase(":memory:", {
        migrations: [CHAT_INBOX_MIGRATION, CHAT_INBOX_REQUEST_KEY_MIGRATION],
      }),
      now,
    );
  }

  /** The database, so a caller can store a message and remember its keys in one transaction. */
  get database(): SqliteDatabase {
    return this.db;
  }

  /** `requestKey`: chosen before the store commits, since handling (and its forward) starts at once. */
  store(adapter: string, message: ChannelMessage, requestKey?: string): StoredMessage {
    const { lastInsertRowid } = this.sql
      .sql("INSERT INTO chat_inbox (adapter, message, at, request_key) VALUES (?, ?, ?, ?)")
      .run(adapter, JSON.stringify(message), this.now(), requestKey ?? null);
    return { seq: Number(lastInsertRowid), adapter, message, ...(requestKey ? { requestKey } : {}) };
  }

  /**
   * Marked with the next commit that happens anyway (within 50 ms at most): the caller marks a
   * message only once it was sent on, so a crash before this commit handles it again at the next
   * start (at least once to its node, as before), never not at all.
   */
  markHandled(seq: number): void {
    TurnCommit.of(this.db).soon(
      () => {
        this.sql.sql("UPDATE chat_inbox SET handled_at = ? WHERE seq = ?").run(this.now(), seq);
        if (this.now() - this.lastPrune > 3_600_000) this.prune();
      },
      () => {}, // left unhandled: handled again at the next start
    );
  }

  /** Messages of this adapter stored but never handled, oldest first (a restart in between). */
  unhandled(adapter: string): StoredMessage[] {
    TurnCommit.of(this.db).flush(); // marks still waiting for a commit count as handled
    const rows = this.sql
      .sql(
        "SELECT seq, message, request_key FROM chat_inbox WHERE adapter = ? AND handled_at IS NULL ORDER BY seq",
      )
      .all(adapter) as Array<{ seq: number; message: string; request_key: string | null }>;
    return rows.flatMap((row) => {
      try {
        const message = JSON.parse(row.message) as ChannelMessage;
        return [
          { seq: row.seq, adapter, message, ...(row.request_key ? { requestKey: row.request_key } : {}) },
        ];
      } catch {
        this.markHandled(row.seq); // unreadable: never retried forever
        return [];
      }
    });
  }

  prune(): number {
    this.lastPrune = this.now();
    return this.sql
      .sql("DELETE FROM chat_inbox WHERE handled_at IS NOT NULL AND handled_at <= ?")
      .run(this.now() - KEEP_HANDLED_MS).changes;
  }
}
