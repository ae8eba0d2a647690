import type { SqliteDatabase } from "@phonework/runtime";
import { ExpiringRows } from "../storage/expiring-rows.ts";
import { TurnCommit } from "../storage/turn-commit.ts";

// Where each forwarded message came from, so an answer that arrives after the router forgot the
// request (it restarted, or gave up waiting) still goes to that chat, and only there: never to
// a chat the host names, and never for a request that was not forwarded to that node.

export const REQUESTS_MIGRATION = `
  CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX requests_at ON requests (at);`;

/** The same table WITHOUT ROWID, rows kept: two B-trees per forwarded request instead of three. */
export const REQUESTS_WITHOUT_ROWID_MIGRATION = `
  CREATE TABLE requests_rebuilt (
    id TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO requests_rebuilt (id, node_id, user_id, platform, chat_id, at)
    SELECT id, node_id, user_id, platform, chat_id, at FROM requests WHERE id IS NOT NULL;
  DROP TABLE requests;
  ALTER TABLE requests_rebuilt RENAME TO requests;
  CREATE INDEX requests_at ON requests (at);`;

export interface RequestOrigin {
  nodeId: string;
  userId: string;
  platform: string;
  chatId: string;
}

export class RequestLog {
  private readonly insert;
  private readonly select;
  private readonly expiring;
  private readonly turn: TurnCommit;

  constructor(
    db: SqliteDatabase,
    ttlMs: number,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare(
      "INSERT OR REPLACE INTO requests (id, node_id, user_id, platform, chat_id, at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.select = db.prepare("SELECT node_id, user_id, platform, chat_id FROM requests WHERE id = ?");
    this.expiring = ExpiringRows.of(db, "requests", ttlMs, now, { alongKey: "id" });
    this.turn = TurnCommit.of(db);
  }

  /** Resolves once the origin is committed (with the turn's other writes): only then is the request sent. */
  record(id: string, origin: RequestOrigin): Promise<void> {
    this.expiring.sweepIfDue(); // its own short commit, when a step is due: the write below stays one statement
    return this.turn.run(
      () => {
        this.insert.run(id, origin.nodeId, origin.userId, origin.platform, origin.chatId, this.now());
      },
      { oneStatement: true },
    );
  }

  /** Where request `id` came from, if it was forwarded to `nodeId`. */
  originOf(nodeId: string, id: string): RequestOrigin | undefined {
    const row = this.select.get(id) as
      | { node_id: string; user_id: string; platform: string; chat_id: string }
      | undefined;
    if (!row || row.node_id !== nodeId) return undefined;
    return { nodeId: row.node_id, userId: row.user_id, platform: row.platform, chatId: row.chat_id };
  }
}
