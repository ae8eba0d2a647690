import type { ChatAddress } from "./chat-adapter.ts";
import type { ChatHub } from "./chat-hub.ts";

// One progress message per running request: created on the first status line, then edited
// with the latest lines, at most once per interval so the chat platform is not flooded.

const MAX_LINES = 8;

export class ProgressMessage {
  private readonly lines: string[] = [];
  private messageId: Promise<string | undefined> | undefined;
  private lastEditAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(
    private readonly chat: ChatHub,
    private readonly to: ChatAddress,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  add(line: string): void {
    if (this.finished) return;
    const text = line.trim();
    if (!text) return;
    this.lines.push(`… ${text}`);
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
    if (!this.messageId) {
      this.lastEditAt = this.now();
      this.messageId = this.chat.sendText(this.to, this.render()).then((sent) => sent?.messageId);
      return;
    }
    if (this.timer) return; // an edit is already scheduled; it will carry this line too
    const wait = Math.max(0, this.lastEditAt + this.intervalMs - this.now());
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** Stops further edits; the final answer is sent as a new message by the caller. */
  finish(): void {
    this.finished = true;
    clearTimeout(this.timer);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.finished) return;
    const id = await this.messageId;
    if (!id || this.finished) return;
    this.lastEditAt = this.now();
    await this.chat.editText(this.to, id, this.render());
  }

  private render(): string {
    return this.lines.join("\n");
  }
}
