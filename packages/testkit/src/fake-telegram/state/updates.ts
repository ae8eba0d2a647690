import type { Update } from "grammy/types";

// The bot's pending updates, in order, until acknowledged: by a getUpdates `offset` above their id,
// or by a 2xx answer from the webhook. Update types outside `allowed_updates` are dropped when
// delivery comes to them (the real server does not queue them at all).

export type UpdateType = Exclude<keyof Update, "update_id">;
export type UpdateBody = Omit<Update, "update_id">;

/** Left out when allowed_updates is empty or never set, as the real API does. */
const OFF_BY_DEFAULT = new Set<string>(["chat_member", "message_reaction", "message_reaction_count"]);

export interface Acknowledgement {
  /** Every update with a smaller id is confirmed. */
  offset: number;
  at: number;
  via: "getUpdates" | "webhook";
}

export const typeOf = (update: Update): string =>
  Object.keys(update).find((key) => key !== "update_id") ?? "";

export class UpdateQueue {
  private queue: Update[] = [];
  private nextId: number;
  private confirmedBelow = 0;
  private readonly listeners = new Set<() => void>();
  readonly acknowledgements: Acknowledgement[] = [];
  /** The allowed_updates setting, shared by getUpdates and setWebhook; empty means the default set. */
  allowedUpdates: string[] = [];

  constructor(firstUpdateId: number) {
    this.nextId = firstUpdateId;
  }

  push(body: UpdateBody): Update {
    const update = { update_id: this.nextId, ...body } as Update;
    this.nextId += 1;
    this.queue.push(update);
    this.notify();
    return update;
  }

  /** getUpdates `offset`: positive confirms every id below it, negative keeps only the last -offset. */
  confirm(offset: number, via: Acknowledgement["via"], at: number): void {
    if (offset < 0) {
      this.confirm(this.queue.slice(offset)[0]?.update_id ?? this.nextId, via, at);
      return;
    }
    if (offset <= this.confirmedBelow) return;
    this.queue = this.queue.filter((update) => update.update_id >= offset);
    this.confirmedBelow = offset;
    this.acknowledgements.push({ offset, at, via });
  }

  /** The next updates to deliver; updates of types not allowed are dropped on the way. */
  deliverable(limit: number): Update[] {
    const allowed = new Set(this.allowedUpdates);
    const isAllowed = (update: Update) =>
      allowed.size ? allowed.has(typeOf(update)) : !OFF_BY_DEFAULT.has(typeOf(update));
    this.queue = this.queue.filter(isAllowed);
    return this.queue.slice(0, limit);
  }

  dropPending(): void {
    this.queue = [];
  }

  pending(): Update[] {
    return [...this.queue];
  }

  isAcknowledged(updateId: number): boolean {
    return updateId < this.confirmedBelow;
  }

  acknowledgedOffset(): number {
    return this.confirmedBelow;
  }

  /** Calls `listener` whenever an update is queued or the delivery mode changes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves at the next change, after `ms`, or when `signal` aborts, whichever comes first. */
  waitForChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const unsubscribe = this.subscribe(done);
      signal.addEventListener("abort", done);
      if (signal.aborted) done();
    });
  }
}
