import type { SqliteDatabase } from "@phonework/runtime";
import { TableKeyFilter } from "../storage/table-key-filter.ts";
import { TurnCommit } from "../storage/turn-commit.ts";

// The delivery ids (per node) the router has handed to a chat platform, kept for a TTL so a
// host that resends after a reconnect gets its ack again instead of the user getting a duplicate.
// An id the table certainly does not hold (nearly every one: resends are rare) is answered from
// memory (storage/table-key-filter.ts), without a SELECT. This class is the table's only writer,
// and every key it writes goes to the filter first: keep it so (the filter's header says why).
// An id answers as long as its row is there: until the table's shared sweeper deletes it, by the
// longest TTL of the stores on the table (expiring-rows.ts); answering longer only acks a resend.

export const DELIVERED_MIGRATION = `
  CREATE TABLE delivered (
    key TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'delivered')),
    message_id TEXT,
    at INTEGER NOT NULL
  );
  CREATE INDEX delivered_at ON delivered (at);`;

/** The same table WITHOUT ROWID, rows kept: two B-trees per delivered item instead of three. */
export const DELIVERED_WITHOUT_ROWID_MIGRATION = `
  CREATE TABLE delivered_rebuilt (
    key TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'delivered')),
    message_id TEXT,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO delivered_rebuilt (key, state, message_id, at)
    SELECT key, state, message_id, at FROM delivered WHERE key IS NOT NULL;
  DROP TABLE delivered;
  ALTER TABLE delivered_rebuilt RENAME TO delivered;
  CREATE INDEX delivered_at ON delivered (at);`;

export type DeliveryStart =
  | { state: "new" }
  | { state: "in_flight" }
  | { state: "delivered"; messageId: string | undefined };

export class DeliveredStore {
  /** Claimed and being handed to the platform. Only this process can be delivering, so memory suffices. */
  private readonly inFlight = new Set<string>();
  /** Delivered, being written with the turn's other writes (one commit); `committed` settles after it. */
  private readonly toRecord = new Map<string, { messageId: string | null; committed: Promise<void> }>();
  private readonly turn: TurnCommit;
  private readonly select;
  private readonly record;
  private readonly expiring;
  /** Which keys may be in the table. */
  private readonly filter: TableKeyFilter;

  constructor(
    db: SqliteDatabase,
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
    // The table's one sweeper and one filter on this connection, whatever the number of stores:
    // swept at start by the first, the filter built after that sweep (withSweeper says why).
    const shared = TableKeyFilter.withSweeper(db, "delivered", ttlMs, now);
    this.expiring = shared.expiring;
    this.filter = shared.filter;
    this.turn = TurnCommit.of(db);
  }

  /** Claims a delivery id; only the caller that gets "new" delivers it. */
  begin(key: string): DeliveryStart {
    this.expiring.sweepIfDue();
    if (this.inFlight.has(key)) return { state: "in_flight" };
    const recorded = this.toRecord.get(key);
    if (recorded !== undefined) return { state: "delivered", messageId: recorded.messageId ?? undefined };
    const row = this.filter.mayHave(key)
      ? (this.select.get(key) as { message_id: string | null } | undefined)
      : undefined;
    if (row) return { state: "delivered", messageId: row.message_id ?? undefined };
    this.inFlight.add(key);
    return { state: "new" };
  }

  /**
   * Delivered: remembered so a resend gets the same ack. Written with the turn's other writes in
   * one commit; resolves once that commit is done, and only then may the host be acknowledged
   * (a crash before it: the host resends and the user may see the item twice, which is the
   * at-least-once side, never a loss). Rejects if the commit failed.
   */
  finish(key: string, messageId: string | undefined): Promise<void> {
    this.inFlight.delete(key);
    const id = messageId ?? null;
    const committed = this.turn
      .run(() => this.recordAt(key, id, this.now()), { oneStatement: true })
      .then(
        () => {
          this.toRecord.delete(key);
        },
        (error: unknown) => {
          // Kept in memory: a resend in this process is still answered with the ack alone.
          throw error;
        },
      );
    this.toRecord.set(key, { messageId: id, committed });
    return committed;
  }

  /** Settles once the write of a delivery `finish` started is committed (at once if there is none). */
  committed(key: string): Promise<void> {
    return this.toRecord.get(key)?.committed ?? Promise.resolve();
  }

  /** Writes what is queued (also called before the database closes). */
  flush(): void {
    this.turn.flush();
  }

  /** Not delivered: forget the claim so a later resend can try again. */
  abandon(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * The one way a key is written: into the filter first, with the same `at`. Still one statement
   * for the turn's batcher: nothing after it can throw, and a failed add wrote nothing.
   */
  private recordAt(key: string, messageId: string | null, at: number): void {
    this.filter.add(key, at);
    this.record.run(key, messageId, at);
  }
}
