import {
  openDatabase,
  PreparedStatements,
  type SqliteDatabase,
  type SqliteStatement,
} from "@phonework/runtime";
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

/**
 * The same table without AUTOINCREMENT, rows and their seq kept: AUTOINCREMENT rewrote the
 * sqlite_sequence row on every store. Without it a new seq is the largest one + 1, so seqs still
 * grow in arrival order (`unhandled` sorts by them); one can come again only after every row above
 * it was pruned, and a pruned row is a handled one nobody marks any more.
 */
export const CHAT_INBOX_NO_AUTOINCREMENT_MIGRATION = `
  CREATE TABLE chat_inbox_rebuilt (
    seq INTEGER PRIMARY KEY,
    adapter TEXT NOT NULL,
    message TEXT NOT NULL,
    at INTEGER NOT NULL,
    handled_at INTEGER,
    request_key TEXT
  );
  INSERT INTO chat_inbox_rebuilt (seq, adapter, message, at, handled_at, request_key)
    SELECT seq, adapter, message, at, handled_at, request_key FROM chat_inbox;
  DROP TABLE chat_inbox;
  ALTER TABLE chat_inbox_rebuilt RENAME TO chat_inbox;
  CREATE INDEX chat_inbox_unhandled ON chat_inbox (adapter, handled_at);`;

/**
 * The unhandled index holds only the rows still to handle (a partial index), in seq order. The
 * index on (adapter, handled_at) held every row kept for the day: a message's store wrote its
 * entry among the unhandled ones and its mark moved it to the handled end, two index pages per
 * message at the commit (2.4 of a one-user commit's 11.6 WAL pages). Now the mark takes the entry
 * out of a small index whose page the store just wrote. The prune finds old rows by seq instead.
 */
export const CHAT_INBOX_UNHANDLED_ONLY_MIGRATION = `
  DROP INDEX chat_inbox_unhandled;
  CREATE INDEX chat_inbox_unhandled ON chat_inbox (adapter, seq) WHERE handled_at IS NULL;`;

export interface StoredMessage {
  seq: number;
  adapter: string;
  message: ChannelMessage;
  /** Absent for rows stored before request keys existed. */
  requestKey?: string;
}

const KEEP_HANDLED_MS = 86_400_000;

/**
 * Handled rows handled before the cutoff, among those stored before the first row stored after it
 * (and not after now: a row stored while the clock ran ahead would hold every later one back).
 */
export const PRUNE_HANDLED = `DELETE FROM chat_inbox WHERE handled_at IS NOT NULL AND handled_at <= @cutoff
  AND seq < coalesce((SELECT seq FROM chat_inbox WHERE at > @cutoff AND at <= @now ORDER BY seq LIMIT 1),
    9223372036854775807)`;

export class ChatInbox {
  private readonly sql: PreparedStatements;
  private readonly insert: SqliteStatement;
  private readonly markHandledNow: SqliteStatement;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
    // The two statements of every message, prepared once (no lookup by text per call).
    this.insert = db.prepare(
      "INSERT INTO chat_inbox (adapter, message, at, request_key) VALUES (?, ?, ?, ?)",
    );
    this.markHandledNow = db.prepare("UPDATE chat_inbox SET handled_at = ? WHERE seq = ?");
  }

  static inMemory(now: () => number): ChatInbox {
    return new ChatInbox(
      openDatabase(":memory:", {
        migrations: [
          CHAT_INBOX_MIGRATION,
          CHAT_INBOX_REQUEST_KEY_MIGRATION,
          CHAT_INBOX_NO_AUTOINCREMENT_MIGRATION,
          CHAT_INBOX_UNHANDLED_ONLY_MIGRATION,
        ],
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
    const { lastInsertRowid } = this.insert.run(
      adapter,
      JSON.stringify(message),
      this.now(),
      requestKey ?? null,
    );
    return { seq: Number(lastInsertRowid), adapter, message, ...(requestKey ? { requestKey } : {}) };
  }

  /**
   * Marked with the next commit that happens anyway (within 50 ms at most): the caller marks a
   * message only once it was sent on, so a crash before this commit handles it again at the next
   * start (at least once to its node, as before), never not at all.
   */
  markHandled(seq: number): void {
    const turn = TurnCommit.of(this.db);
    turn.soon(
      () => this.markHandledNow.run(this.now(), seq),
      () => {}, // left unhandled: handled again at the next start
      { oneStatement: true },
    );
    // Also once the clock is set back by over an hour (it ran ahead): not only when it is there again.
    const now = this.now();
    if (Math.abs(now - this.lastPrune) > 3_600_000) {
      this.lastPrune = now;
      turn.soon(
        () => this.prune(),
        () => {}, // pruned next time
        { oneStatement: true },
      );
    }
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

  /**
   * Deletes the handled rows older than a day. No index on handled_at: rows are stored in seq
   * order, so the old ones are a prefix of the table, read from its start up to the first row
   * stored within the day (a clock set back only keeps some rows longer: those stored while it ran
   * ahead until the clock is there again, and the ones after a row the clock stored out of order).
   */
  prune(): number {
    const now = this.now();
    this.lastPrune = now;
    return this.sql.sql(PRUNE_HANDLED).run({ cutoff: now - KEEP_HANDLED_MS, now }).changes;
  }
}
