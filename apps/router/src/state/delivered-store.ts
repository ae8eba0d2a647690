import type { SqliteDatabase } from "@phonework/runtime";

// The delivery ids (per node) the router has handed to a chat platform, kept for a TTL so a
// host that resends after a reconnect gets its ack again instead of the user getting a duplicate.

export const DELIVERED_MIGRATION = `
  CREATE TABLE delivered (
    key TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'delivered')),
    message_id TEXT,
    at INTEGER NOT NULL
  );
  CREATE INDEX delivered_at ON delivered (at);`;

export type DeliveryStart =
  | { state: "new" }
  | { state: "in_flight" }
  | { state: "delivered"; messageId: string | undefined };

const PRUNE_EVERY_MS = 3_600_000;

export class DeliveredStore {
  private lastPrune = 0;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    // A delivery in flight when the router stopped is unknown: let the host's resend retry it.
    db.prepare("DELETE FROM delivered WHERE state = 'in_flight'").run();
    this.prune();
  }

  /** Claims a delivery id; only the caller that gets "new" delivers it. */
  begin(key: string): DeliveryStart {
    if (this.now() - this.lastPrune > PRUNE_EVERY_MS) this.prune();
    const claimed = this.db
      .prepare("INSERT OR IGNORE INTO delivered (key, state, at) VALUES (?, 'in_flight', ?)")
      .run(key, this.now());
    if (claimed.changes === 1) return { state: "new" };
    const row = this.db.prepare("SELECT state, message_id FROM delivered WHERE key = ?").get(key) as
      | { state: "in_flight" | "delivered"; message_id: string | null }
      | undefined;
    if (row?.state === "delivered") return { state: "delivered", messageId: row.message_id ?? undefined };
    return { state: "in_flight" };
  }

  finish(key: string, messageId: string | undefined): void {
    this.db
      .prepare("UPDATE delivered SET state = 'delivered', message_id = ?, at = ? WHERE key = ?")
      .run(messageId ?? null, this.now(), key);
  }

  /** Not delivered: forget the claim so a later resend can try again. */
  abandon(key: string): void {
    this.db.prepare("DELETE FROM delivered WHERE key = ?").run(key);
  }

  prune(): number {
    this.lastPrune = this.now();
    return this.db.prepare("DELETE FROM delivered WHERE at < ?").run(this.now() - this.ttlMs).changes;
  }
}
