import type {
  Button,
  DeliverableFrame,
  FrameHandlers,
  NotifyAlert,
  PushAckFrame,
  RouterFrame,
} from "@phonework/protocol";
import {
  atEndOfTurn,
  BackgroundSyncCommit,
  type Logger,
  type SqliteDatabase,
  timeOrderedId,
} from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { OutgoingFile } from "../contracts/tool.ts";
import { type OutboxRow, OutboxRows } from "./outbox-rows.ts";

// Everything the host pushes (answers, task completions, reminders, files) goes through this
// durable outbox: written to SQLite first (committed before it leaves; the fsync that makes it
// survive a power cut runs beside the event loop while it travels), sent when the link is up,
// and sent again after every reconnect until the router acknowledges it. The router delivers each `delivery_id` once, so
// the wire is at-least-once and the user sees each item exactly once.

/** A deliverable frame before the outbox gives it its delivery id. */
export type OutboxItem = DeliverableFrame extends infer Frame
  ? Frame extends DeliverableFrame
    ? Omit<Frame, "delivery_id">
    : never
  : never;

/**
 * Which feature stored an item and what of its own it is about (a scheduled job's id): stored with
 * the item, so the feature is told of its own acknowledgements without reading delivery ids.
 */
export interface OutboxOrigin {
  feature: string;
  ref: string;
}

export interface DeliveryResult {
  deliveryId: string;
  origin?: OutboxOrigin;
  ok: boolean;
  messageId?: string;
  error?: string;
}

/** The part of the router link the outbox uses. */
export interface OutboxLink {
  /** Sends an already encoded frame; false if the link is not up. */
  sendEncoded(text: string): boolean;
  onStateChange(listener: (state: string) => void): () => void;
}

export const OUTBOX_MIGRATION = `
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL UNIQUE,
    frame TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );`;

/** Items carry their origin as data; a scheduled job's items queued before this said it in their id. */
export const OUTBOX_ORIGIN_MIGRATION = `
  ALTER TABLE outbox ADD COLUMN origin TEXT;
  UPDATE outbox
     SET origin = json_object('feature', 'schedule', 'ref',
                              substr(delivery_id, 5, instr(substr(delivery_id, 5), '-') - 1))
   WHERE delivery_id GLOB 'job-[0-9]*-*';`;

/**
 * The table as it is now: no AUTOINCREMENT (its counter was a second page written per commit) and
 * no index on `delivery_id` (a third): the outbox mirrors the table in memory, so it dedups ids
 * itself and deletes a row by its `seq`. Each answer's commit writes one page of the WAL, not three.
 */
export const OUTBOX_LEAN_MIGRATION = `
  CREATE TABLE outbox_lean (
    seq INTEGER PRIMARY KEY,
    delivery_id TEXT NOT NULL,
    frame TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    origin TEXT
  );
  INSERT INTO outbox_lean (seq, delivery_id, frame, created_at, origin)
    SELECT seq, delivery_id, frame, created_at, origin FROM outbox;
  DROP TABLE outbox;
  ALTER TABLE outbox_lean RENAME TO outbox;`;

/**
 * Acknowledged rows are deleted in batches this often. A crash before the delete only means the
 * item is sent once more after a restart, and the router, which remembers delivered ids, answers
 * that with the same ack and shows the user nothing: so one fsync per batch, not per ack.
 */
const ACK_BATCH_MS = 200;

export class Outbox {
  /** Every unacknowledged item, encoded, in the order it was stored (the table, mirrored). */
  private readonly unacked = new Map<string, string>();
  /** The origin of each unacknowledged item that has one. */
  private readonly origins = new Map<string, OutboxOrigin>();
  /** The row of each unacknowledged item whose row is stored (a delete finds it by that). */
  private readonly seqs = new Map<string, number>();
  /** Unacknowledged items not yet sent on the current connection; a reconnect refills it. */
  private unsent = new Set<string>();
  /** Acknowledged items whose rows are still to be deleted, with their rows' seq. */
  private readonly acked = new Map<string, number | undefined>();
  private ackTimer: NodeJS.Timeout | undefined;
  private link: OutboxLink | undefined;
  private readonly listeners = new Set<(result: DeliveryResult) => void>();
  private readonly storedListeners = new Set<(frame: OutboxItem, deliveryId: string) => void>();
  private readonly flushSoon = atEndOfTurn(() => this.flush());
  /** Stored at the next flush, all in one transaction: one fsync for a burst of answers. */
  private toInsert: OutboxRow[] = [];
  private readonly rows: OutboxRows;
  /** The outbox's own commits: durable against the process dying before a frame leaves, flushed beside the loop. */
  private readonly commits: BackgroundSyncCommit;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.rows = new OutboxRows(db);
    this.commits = new BackgroundSyncCommit(db, logger);
    for (const row of this.rows.load()) {
      this.unacked.set(row.delivery_id, row.frame);
      this.seqs.set(row.delivery_id, row.seq);
      if (row.origin) this.origins.set(row.delivery_id, JSON.parse(row.origin) as OutboxOrigin);
    }
  }

  /** Rows stored and deleted, and the commits and background flushes that did it (tests and the bench read them). */
  get stats(): { commits: number; flushes: number; stored: number; deleted: number; seqsKnown: number } {
    return {
      ...this.commits.stats,
      stored: this.rows.stored,
      deleted: this.rows.deleted,
      seqsKnown: this.seqs.size,
    };
  }

  attach(link: OutboxLink): void {
    this.link = link;
    link.onStateChange((state) => {
      this.unsent = new Set(this.unacked.keys());
      if (state === "registered") this.flush();
    });
  }

  /**
   * Stores the frame and sends it once stored. Inside a caller's transaction the row is part of
   * it (a reminder and its job's new state commit together); otherwise rows enqueued in the same
   * turn of the event loop are committed together (group commit) just before they are sent.
   * Returns the delivery id (given, or a new uuid). `origin` comes back with the item's result.
   */
  enqueue(frame: OutboxItem, deliveryId: string = timeOrderedId(), origin?: OutboxOrigin): string {
    const stored = this.unacked.get(deliveryId);
    const encoded = stored ?? JSON.stringify({ ...frame, delivery_id: deliveryId });
    // Acknowledged but its row not yet deleted, and asked for again: the row stays.
    if (stored === undefined && this.acked.has(deliveryId)) {
      const seq = this.acked.get(deliveryId);
      if (seq !== undefined) this.seqs.set(deliveryId, seq);
      this.acked.delete(deliveryId);
    } else if (stored === undefined) {
      const row: OutboxRow = [deliveryId, encoded, this.now(), origin ? JSON.stringify(origin) : null];
      // Inside a caller's transaction the row is its; the seq holds if it commits (a delete also
      // checks the id, so a seq reused after a rollback deletes nothing of another item's).
      if (this.db.inTransaction) this.seqs.set(deliveryId, this.rows.insertOne(row));
      else this.toInsert.push(row);
      if (origin) this.origins.set(deliveryId, origin);
      for (const listener of this.storedListeners) listener(frame, deliveryId);
    }
    this.unacked.set(deliveryId, encoded);
    // Already stored and sent on this link (a duplicate request asking again): send it again.
    this.unsent.add(deliveryId);
    this.flushSoon();
    return deliveryId;
  }

  /** The router's answer: the item is done (delivered, or refused for good). */
  acknowledge(ack: PushAckFrame): void {
    if (!this.unacked.delete(ack.delivery_id)) return; // a repeated ack
    this.unsent.delete(ack.delivery_id);
    this.acked.set(ack.delivery_id, this.seqs.get(ack.delivery_id));
    this.seqs.delete(ack.delivery_id);
    this.ackTimer ??= setTimeout(() => this.deleteAcked(), ACK_BATCH_MS).unref();
    if (!ack.ok) this.logger.warn({ deliveryId: ack.delivery_id, error: ack.error }, "push not delivered");
    const origin = this.origins.get(ack.delivery_id);
    this.origins.delete(ack.delivery_id);
    const result: DeliveryResult = {
      deliveryId: ack.delivery_id,
      ...(origin ? { origin } : {}),
      ok: ack.ok,
      ...(ack.message_id ? { messageId: ack.message_id } : {}),
      ...(ack.error ? { error: ack.error } : {}),
    };
    for (const listener of this.listeners) listener(result);
  }

  /**
   * A message of the host's own to a chat; `editKey` keeps one message up to date (a plan's
   * progress); `alert` says it is news for the user's phone too (NotifyFrame's `alert`).
   */
  notify(
    to: ChatOwner,
    text: string,
    options: { buttons?: Button[][]; editKey?: string; alert?: NotifyAlert } = {},
  ): string {
    return this.enqueue({
      type: "notify",
      ...wireOwner(to),
      text,
      ...(options.buttons?.length ? { buttons: options.buttons } : {}),
      ...(options.editKey ? { edit_key: options.editKey } : {}),
      ...(options.alert ? { alert: options.alert } : {}),
    });
  }

  /** A file for a chat. */
  sendFile(to: ChatOwner, file: OutgoingFile): string {
    return this.enqueue({
      type: "send_file",
      ...wireOwner(to),
      name: file.name,
      ...(file.mimeType ? { mime_type: file.mimeType } : {}),
      data_base64: file.data.toString("base64"),
    });
  }

  /** A background task's end, told to the chat that started it. */
  taskComplete(to: ChatOwner, task: TaskCompletion): string {
    return this.enqueue({ type: "task_complete", ...wireOwner(to), ...task });
  }

  onSettled(listener: (result: DeliveryResult) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Each new item as it is accepted (not again when it is re-sent): the channel logs record what the host says. */
  onStored(listener: (frame: OutboxItem, deliveryId: string) => void): () => void {
    this.storedListeners.add(listener);
    return () => this.storedListeners.delete(listener);
  }

  /** The frames the outbox answers: the router's acknowledgements. */
  readonly frames: FrameHandlers<PushAckFrame> = { push_ack: (ack) => this.acknowledge(ack) };

  /**
   * The router's error about one item. Over the push rate, or a worker result whose master is
   * offline: kept, and sent again later. Anything else is logged (the router said why).
   */
  pushFailed(frame: Extract<RouterFrame, { type: "error" }>): void {
    const retry = frame.code === "RATE_LIMITED" || frame.code === "NODE_OFFLINE";
    if (retry && frame.delivery_id)
      this.retryLater(frame.delivery_id, Math.max(1, frame.retry_after_s ?? 5) * 1000);
    else this.logger.warn({ code: frame.code, deliveryId: frame.delivery_id }, frame.message);
  }

  /**
   * The router asked us to wait (RATE_LIMITED): the item stays stored and is sent again after
   * `delayMs` (or at the next reconnect, whichever is first).
   */
  retryLater(deliveryId: string, delayMs: number): void {
    if (!this.unacked.has(deliveryId)) return;
    this.unsent.delete(deliveryId);
    setTimeout(() => {
      if (!this.unacked.has(deliveryId)) return;
      this.unsent.add(deliveryId);
      this.flush();
    }, delayMs).unref();
  }

  /** Items not yet acknowledged. */
  pending(): number {
    return this.unacked.size;
  }

  /** Stores what is queued and deletes what has been acknowledged; call before closing the database. */
  close(): void {
    this.storeQueued();
    this.deleteAcked();
    this.commits.close();
  }

  private storeQueued(): void {
    if (this.toInsert.length === 0) return;
    const rows = this.toInsert;
    this.toInsert = [];
    this.commits.commit(() => this.rows.insertAll(rows, this.seqs));
    // Acknowledged before its row was committed (a stale ack racing a re-enqueue): the ack deletes
    // the row by its id, so its seq is not kept (it would stay for good).
    for (const [deliveryId] of rows) if (!this.unacked.has(deliveryId)) this.seqs.delete(deliveryId);
  }

  private deleteAcked(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.acked.size === 0) return;
    const acked = [...this.acked];
    this.acked.clear();
    this.commits.commit(() => this.rows.deleteAll(acked));
  }

  private flush(): void {
    this.storeQueued();
    if (!this.link) return;
    for (const id of this.unsent) {
      const encoded = this.unacked.get(id);
      if (encoded !== undefined && !this.link.sendEncoded(encoded)) return; // link down: resent on reconnect
      this.unsent.delete(id);
    }
  }
}

/** What a finished background task reports (task_complete without its chat). */
export type TaskCompletion = Pick<
  Extract<DeliverableFrame, { type: "task_complete" }>,
  "task_id" | "ok" | "description" | "output" | "elapsed_ms"
>;

const wireOwner = (owner: ChatOwner) => ({
  user_id: owner.userId,
  platform: owner.platform,
  chat_id: owner.chatId,
});

/** The user an item is for; worker results go to another node, not to a user. */
export const recipientOf = (item: OutboxItem): string | undefined =>
  item.type === "worker_result" ? undefined : item.user_id;
