import { randomUUID } from "node:crypto";
import type { HostFrame, PushAckFrame } from "@phonework/protocol";
import type { Logger, SqliteDatabase } from "@phonework/runtime";

// Everything the host pushes (answers, task completions, reminders, files) goes through this
// durable outbox: written to SQLite first, sent when the link is up, and sent again after every
// reconnect until the router acknowledges it. The router delivers each `delivery_id` once, so
// the wire is at-least-once and the user sees each item exactly once.

export type OutboxFrame = Extract<
  HostFrame,
  { type: "notify" | "task_complete" | "send_file" | "forward_response" }
>;

export interface DeliveryResult {
  deliveryId: string;
  ok: boolean;
  messageId?: string;
  error?: string;
}

/** The part of the router link the outbox uses. */
export interface OutboxLink {
  send(frame: HostFrame): boolean;
  onStateChange(listener: (state: string) => void): () => void;
}

export const OUTBOX_MIGRATION = `
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL UNIQUE,
    frame TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );`;

export class Outbox {
  /** Items already sent on the current connection; a reconnect clears it so all are resent. */
  private sentOnThisLink = new Set<string>();
  private link: OutboxLink | undefined;
  private readonly listeners = new Set<(result: DeliveryResult) => void>();
  private flushQueued = false;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  attach(link: OutboxLink): void {
    this.link = link;
    link.onStateChange((state) => {
      this.sentOnThisLink = new Set();
      if (state === "registered") this.flush();
    });
  }

  /**
   * Stores the frame; it goes out after the current synchronous work (so a caller's surrounding
   * transaction commits first). Returns its delivery id (given, or a new uuid).
   */
  enqueue(frame: OutboxFrame, deliveryId: string = randomUUID()): string {
    this.db
      .prepare("INSERT OR IGNORE INTO outbox (delivery_id, frame, created_at) VALUES (?, ?, ?)")
      .run(deliveryId, JSON.stringify({ ...frame, delivery_id: deliveryId }), this.now());
    // Already stored and sent on this link (a duplicate request asking again): send it again.
    this.sentOnThisLink.delete(deliveryId);
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
    return deliveryId;
  }

  /** The router's answer: the item is done (delivered, or refused for good). */
  acknowledge(ack: PushAckFrame): void {
    const removed = this.db.prepare("DELETE FROM outbox WHERE delivery_id = ?").run(ack.delivery_id);
    this.sentOnThisLink.delete(ack.delivery_id);
    if (removed.changes === 0) return; // a repeated ack
    if (!ack.ok) this.logger.warn({ deliveryId: ack.delivery_id, error: ack.error }, "push not delivered");
    const result: DeliveryResult = {
      deliveryId: ack.delivery_id,
      ok: ack.ok,
      ...(ack.message_id ? { messageId: ack.message_id } : {}),
      ...(ack.error ? { error: ack.error } : {}),
    };
    for (const listener of this.listeners) listener(result);
  }

  onSettled(listener: (result: DeliveryResult) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Items not yet acknowledged. */
  pending(): number {
    return Number(this.db.prepare("SELECT count(*) FROM outbox").pluck().get());
  }

  private flush(): void {
    if (!this.link) return;
    const rows = this.db.prepare("SELECT delivery_id, frame FROM outbox ORDER BY seq").all() as Array<{
      delivery_id: string;
      frame: string;
    }>;
    for (const row of rows) {
      if (this.sentOnThisLink.has(row.delivery_id)) continue;
      if (!this.link.send(JSON.parse(row.frame) as HostFrame)) return; // link down: resent on reconnect
      this.sentOnThisLink.add(row.delivery_id);
    }
  }
}
