import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress } from "../chat/chat-types.ts";

// A turn's details in the thread of its main message (or as replies to it): coalesced, so a burst
// of tool calls becomes one message per interval, never a flood; bounded per turn, past which one
// line says how many were left out. `close()` sends what is still waiting at once, so the turn's
// answer can follow its details.

/** Details messages per turn, at most. */
export const MAX_DETAIL_MESSAGES = 8;
/** Characters of one details message before rendering (a result is at most 1,500 from the host). */
const MAX_MESSAGE_CHARS = 3500;
/** One detail, whatever a node sent. */
const MAX_DETAIL_CHARS = 2000;
/** Details held while they wait for the interval; more are counted as left out. */
const MAX_WAITING = 40;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export class TurnDetails {
  private waiting: string[] = [];
  private sent = 0;
  private leftOut = 0;
  private lastOutAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly chat: ChatHub,
    private readonly to: ChatAddress,
    /** The main message's platform id (created on demand); undefined when there is none. */
    private readonly main: () => Promise<string | undefined>,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** Whether any details message went out. */
  get shown(): boolean {
    return this.sent > 0;
  }

  /** `text`: Markdown, one detail. */
  add(text: string): void {
    if (this.closed) return;
    if (this.sent >= MAX_DETAIL_MESSAGES || this.waiting.length >= MAX_WAITING) {
      this.leftOut++;
      return;
    }
    this.waiting.push(clip(text, MAX_DETAIL_CHARS));
    this.schedule();
  }

  /** Sends what waits now (within the bound), then the left-out line; resolves once all is out. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    while (this.waiting.length > 0 && this.sent < MAX_DETAIL_MESSAGES) await this.sendOne();
    this.leftOut += this.waiting.length;
    this.waiting = [];
    const id = this.leftOut > 0 && this.sent > 0 ? await this.main() : undefined;
    if (id) await this.chat.sendText(this.to, `… ${this.leftOut} more not shown`, { thread: id });
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    const wait = Math.max(0, this.lastOutAt + this.intervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sending = this.sending.then(() => this.sendOne());
    }, wait);
  }

  /** One message of as many waiting details as fit. */
  private async sendOne(): Promise<void> {
    if (this.waiting.length === 0 || this.sent >= MAX_DETAIL_MESSAGES) return;
    const id = await this.main();
    if (!id) {
      this.leftOut += this.waiting.length; // nothing to put them under
      this.waiting = [];
      return;
    }
    let size = 0;
    let count = 0;
    for (const detail of this.waiting) {
      if (count > 0 && size + detail.length > MAX_MESSAGE_CHARS) break;
      size += detail.length + 1;
      count++;
    }
    const text = this.waiting.splice(0, count).join("\n");
    this.sent++;
    this.lastOutAt = this.now();
    await this.chat.sendText(this.to, text, { thread: id });
    if (this.waiting.length > 0) this.schedule();
  }
}
