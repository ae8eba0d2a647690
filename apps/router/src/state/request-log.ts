import type { SqliteDatabase } from "@phonework/runtime";

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

export interface RequestOrigin {
  nodeId: string;
  userId: string;
  platform: string;
  chatId: string;
}

const PRUNE_EVERY_MS = 3_600_000;

export class RequestLog {
  private lastPrune = 0;
  private readonly insert;
  private readonly select;
  private readonly expire;

  constructor(
    db: SqliteDatabase,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare(
      "INSERT OR REPLACE INTO requests (id, node_id, user_id, platform, chat_id, at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.select = db.prepare("SELECT node_id, user_id, platform, chat_id FROM requests WHERE id = ?");
    this.expire = db.prepare("DELETE FROM requests WHERE at < ?");
  }

  record(id: string, origin: RequestOrigin): void {
    if (this.now() - this.lastPrune > PRUNE_EVERY_MS) this.prune();
    this.insert.run(id, origin.nodeId, origin.userId, origin.platform, origin.chatId, this.now());
  }

  /** Where request `id` came from, if it was forwarded to `nodeId`. */
  originOf(nodeId: string, id: string): RequestOrigin | undefined {
    const row = this.select.get(id) as
      | { node_id: string; user_id: string; platform: string; chat_id: string }
      | undefined;
    if (!row || row.node_id !== nodeId) return undefined;
    return { nodeId: row.node_id, userId: row.user_id, platform: row.platform, chatId: row.chat_id };
  }

  prune(): void {
    this.lastPrune = this.now();
    this.expire.run(this.now() - this.ttlMs);
  }
}
