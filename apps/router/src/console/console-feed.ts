import { BoundedMap } from "../storage/bounded-map.ts";
import type { ConsoleMessage, ConsoleServerFrame } from "./console-frames.ts";
import type { ConsoleHistory } from "./console-history.ts";

// The console chat of each user: what the router sends goes to every page that user has open,
// and the latest messages (with their edits) are kept for a page opened later, bounded per user.
// With a history store (router.db) they survive a restart: each is written through, and a user's
// are read back the first time they are needed; memory holds only the recently written-to users.

export type ChatFrame = Extract<ConsoleServerFrame, { type: "message" | "edit" }>;
type Listener = (frame: ChatFrame) => void;

export interface ConsoleFeedLimits {
  /** Messages kept per user for pages opened later. */
  maxMessages: number;
  /** Characters of text kept per user, at most (an answer may be 20,000 on its own). */
  maxChars: number;
  /** Users whose messages are kept (the least recently written to are forgotten first). */
  maxUsers: number;
}

/** At most 200 users × 200,000 characters: a few hundred MB in the worst case, usually far less. */
export const CONSOLE_FEED_LIMITS: ConsoleFeedLimits = { maxMessages: 100, maxChars: 200_000, maxUsers: 200 };

export class ConsoleFeed {
  private readonly pages = new Map<string, Set<Listener>>();
  private readonly history: BoundedMap<string, Map<string, ConsoleMessage>>;

  constructor(
    private readonly limits: ConsoleFeedLimits = CONSOLE_FEED_LIMITS,
    private readonly store?: ConsoleHistory,
  ) {
    this.history = new BoundedMap(limits.maxUsers);
  }

  /** A page of `userId` opened: it gets every frame for that user until the returned function is called. */
  subscribe(userId: string, listener: Listener): () => void {
    let listeners = this.pages.get(userId);
    if (!listeners) {
      listeners = new Set();
      this.pages.set(userId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.pages.delete(userId);
    };
  }

  publish(userId: string, frame: ChatFrame): void {
    this.remember(userId, frame);
    for (const listener of this.pages.get(userId) ?? []) listener(frame);
  }

  /** The user's latest messages, oldest first, without file contents. */
  messages(userId: string): ConsoleMessage[] {
    return [...this.kept(userId).values()];
  }

  /** Whether a message is known (an edit of an unknown one is refused, as a platform would). */
  has(userId: string, messageId: string): boolean {
    return this.kept(userId).has(messageId);
  }

  /** Open pages, across users. */
  get pageCount(): number {
    let count = 0;
    for (const listeners of this.pages.values()) count += listeners.size;
    return count;
  }

  /** The user's kept messages: from memory, or read back from the store (within today's bounds). */
  private kept(userId: string): Map<string, ConsoleMessage> {
    let kept = this.history.get(userId);
    if (kept) return kept;
    kept = new Map();
    for (const message of this.store?.load(userId, this.limits.maxMessages) ?? [])
      kept.set(message.id, message);
    this.trim(kept);
    this.history.set(userId, kept);
    return kept;
  }

  /** Drops the oldest messages until the bounds hold; returns their ids. */
  private trim(kept: Map<string, ConsoleMessage>): string[] {
    const dropped: string[] = [];
    let chars = 0;
    for (const { text } of kept.values()) chars += text.length;
    for (const [id, { text }] of kept) {
      if (kept.size <= this.limits.maxMessages && chars <= this.limits.maxChars) break;
      kept.delete(id);
      dropped.push(id);
      chars -= text.length;
    }
    return dropped;
  }

  private remember(userId: string, frame: ChatFrame): void {
    const kept = this.kept(userId);
    let changed: ConsoleMessage | undefined;
    let dropped: string[] = [];
    if (frame.type === "message") {
      const { file, ...message } = frame.message;
      // A file's contents go only to the pages open when it came: history holds every user's.
      const { data_base64: _dropped, ...described } = file ?? { name: "", size: 0 };
      changed = file ? { ...message, file: described } : message;
      kept.set(message.id, changed);
      dropped = this.trim(kept);
    } else {
      const message = kept.get(frame.id);
      if (message) {
        changed = { ...message, text: frame.text, ...(frame.buttons ? { buttons: frame.buttons } : {}) };
        kept.set(frame.id, changed);
      }
    }
    this.history.set(userId, kept);
    // A message too long for the bound on its own is dropped at once: nothing to store.
    if (changed && kept.has(changed.id)) this.store?.save(userId, changed, dropped);
    else if (dropped.length > 0) this.store?.drop(userId, dropped);
  }
}
