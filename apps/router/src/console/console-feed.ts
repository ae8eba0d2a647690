import { BoundedMap } from "../storage/bounded-map.ts";
import type { ConsoleMessage, ConsoleServerFrame } from "./console-frames.ts";

// The console chat of each user: what the router sends goes to every page that user has open,
// and the latest messages (with their edits) are kept for a page opened later. In memory, bounded
// per user and in users: a restart starts every console chat empty (the phone chat keeps its own).

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
const DEFAULT_LIMITS: ConsoleFeedLimits = { maxMessages: 100, maxChars: 200_000, maxUsers: 200 };

export class ConsoleFeed {
  private readonly pages = new Map<string, Set<Listener>>();
  private readonly history: BoundedMap<string, Map<string, ConsoleMessage>>;

  constructor(private readonly limits: ConsoleFeedLimits = DEFAULT_LIMITS) {
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
    return [...(this.history.get(userId)?.values() ?? [])];
  }

  /** Whether a message is known (an edit of an unknown one is refused, as a platform would). */
  has(userId: string, messageId: string): boolean {
    return this.history.get(userId)?.has(messageId) ?? false;
  }

  /** Open pages, across users. */
  get pageCount(): number {
    let count = 0;
    for (const listeners of this.pages.values()) count += listeners.size;
    return count;
  }

  private remember(userId: string, frame: ChatFrame): void {
    const kept = this.history.get(userId) ?? new Map<string, ConsoleMessage>();
    if (frame.type === "message") {
      const { file, ...message } = frame.message;
      // A file's contents go only to the pages open when it came: history holds every user's.
      const { data_base64: _dropped, ...described } = file ?? { name: "", size: 0 };
      kept.set(message.id, file ? { ...message, file: described } : message);
      let chars = 0;
      for (const { text } of kept.values()) chars += text.length;
      for (const [id, { text }] of kept) {
        if (kept.size <= this.limits.maxMessages && chars <= this.limits.maxChars) break;
        kept.delete(id);
        chars -= text.length;
      }
    } else {
      const message = kept.get(frame.id);
      if (message)
        kept.set(frame.id, {
          ...message,
          text: frame.text,
          ...(frame.buttons ? { buttons: frame.buttons } : {}),
        });
    }
    this.history.set(userId, kept);
  }
}
