import { atEndOfTurn, type SqliteDatabase } from "@phonework/runtime";
import { ExpiringRows } from "../storage/expiring-rows.ts";

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

export class DeliveredStore {
  /** Claimed and being handed to the platform. Only this process can be delivering, so memory suffices. */
  private readonly inFlight = new Set<string>();
  /** Delivered, written at the end of this turn of the event loop with the others (one commit). */
  private readonly toRecord = new Map<string, string | null>();
  private readonly flushSoon = atEndOfTurn(() => this.flush());
  private readonly select;
  private readonly record;
  private readonly expiring;

  constructor(
    private readonly db: SqliteDatabase,
    ttlMs: number,
    private readonly now: () => number,
  ) {
    // Rows of this state were written by earlier versions; such a delivery's outcome is unknown,
    // so let the host's resend retry it.
    db.prepare("DELETE FROM delivered WHERE state = 'in_flight'").run();
    this.select = db.prepare("SELECT message_id FROM delivered WHERE key = ?");
    this.record = db.prepare(
      "INSERT OR REPLACE INTO delivered (key, state, message_id, at) VALUES (?, 'delivered', ?, ?)",
    );
    this.expiring = new ExpiringRows(db, "delivered", ttlMs, now);
    this.expiring.sweep();
  }

  /** Claims a delivery id; only the caller that gets "new" delivers it. */
  begin(key: string): DeliveryStart {
    this.expiring.sweepIfDue();
    if (this.inFlight.has(key)) return { state: "in_flight" };
    const recorded = this.toRecord.get(key);
    if (recorded !== undefined) return { state: "delivered", messageId: recorded ?? undefined };
    const row = this.select.get(key) as { message_id: string | null } | undefined;
    if (row) return { state: "delivered", messageId: row.message_id ?? undefined };
    this.inFlight.add(key);
    return { state: "new" };
  }

  /**
   * Delivered: remembered so a resend gets the same ack. Written with the other deliveries of
   * this turn in one commit; the window is no wider than the one between the platform's answer
   * and any write.
   */
  finish(key: string, messageId: string | undefined): void {
    this.inFlight.delete(key);
    this.toRecord.set(key, messageId ?? null);
    this.flushSoon();
  }

  /** Writes the deliveries not yet written (also called before the database closes). */
  flush(): void {
    if (this.toRecord.size === 0) return;
    const at = this.now();
    const rows = [...this.toRecord];
    this.db.transaction(() => {
      for (const [key, messageId] of rows) this.record.run(key, messageId, at);
    })();
    for (const [key] of rows) this.toRecord.delete(key);
  }

  /** Not delivered: forget the claim so a later resend can try again. */
  abandon(key: string): void {
    this.inFlight.delete(key);
  }
}
