import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, ChatReply, SendOptions, SentMessage } from "../chat/chat-types.ts";

// The progress of one running request. Where the platform can edit, one message is created on
// the first status line and edited with the latest lines at most once per interval; where it
// cannot, the new lines go out as new messages, at most once per interval. When the answer comes,
// the chat's result mode decides: `replace` puts the answer in place of the progress message;
// `send` marks the progress message done (or failed) and sends the answer as a new message.
// It is the main message of a turn (turn-presentation.ts), which may also carry a turn's details
// as lines of their own (a result's "↳ …", the usage's "📊 …").

const MAX_LINES = 8;

export type ResultMode = "replace" | "send";

export class ProgressMessage {
  private readonly lines: string[] = [];
  private messageId: Promise<string | undefined> | undefined;
  private lastOutAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;
  /** The update on its way, if one was sent (most answers come before any: nothing to wait for). */
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly chat: ChatHub,
    private readonly to: ChatAddress,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** `marker` starts the line: "…" for a status, another sign for a detail shown inline. */
  add(line: string, marker = "…"): void {
    if (this.finished) return;
    const text = line.trim();
    if (!text) return;
    this.lines.push(`${marker} ${text}`);
    if (this.editable && this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
    if (this.editable && !this.messageId) {
      this.lastOutAt = this.now();
      this.messageId = this.chat.sendText(this.to, this.render()).then((sent) => sent?.messageId);
      return;
    }
    if (this.timer) return; // an update is already scheduled; it will carry this line too
    const wait = Math.max(0, this.lastOutAt + this.intervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flush();
    }, wait);
  }

  /** Whether the progress message was sent (or is on its way). */
  get opened(): boolean {
    return this.messageId !== undefined;
  }

  /**
   * The progress message's id, once sent: created now (saying the turn is working) when no line
   * came yet. Undefined where the platform cannot edit (there is no one progress message) or the
   * send failed.
   */
  mainMessage(): Promise<string | undefined> {
    if (!this.editable) return Promise.resolve(undefined);
    if (!this.messageId && !this.finished) this.add("working");
    return this.messageId ?? Promise.resolve(undefined);
  }

  /** Stops further updates. */
  finish(): void {
    this.finished = true;
    clearTimeout(this.timer);
  }

  /**
   * Shows the answer by the chat's result mode, after any update already on its way. Replacing
   * needs an editable progress message and an answer that fits in one message; otherwise the
   * answer is sent. Buttons always come with a message of their own.
   */
  async conclude(
    reply: ChatReply & { ok: boolean },
    mode: ResultMode,
    options: SendOptions,
  ): Promise<SentMessage | undefined> {
    this.finish();
    if (this.flushing) await this.flushing;
    const id = this.messageId ? await this.messageId : undefined;
    if (!id) return this.send(reply, options);
    const noButtons = !reply.buttons || reply.buttons.length === 0;
    if (mode === "replace" && noButtons && this.chat.fitsOneMessage(this.to.platform, reply.text)) {
      if (await this.chat.editText(this.to, id, reply.text)) return { messageId: id };
      return this.send(reply, options);
    }
    await this.chat.editText(this.to, id, `${this.render()}\n${reply.ok ? "✅ done" : "❌ failed"}`);
    return this.send(reply, options);
  }

  /** The answer as a message of its own (a method, not a closure made per answer). */
  private send(reply: ChatReply, options: SendOptions): Promise<SentMessage | undefined> {
    return this.chat.sendText(this.to, reply.text, {
      ...options,
      ...(reply.buttons ? { buttons: reply.buttons } : {}),
    });
  }

  private get editable(): boolean {
    return this.chat.canEdit(this.to.platform);
  }

  private async flush(): Promise<void> {
    if (this.finished) return;
    this.lastOutAt = this.now();
    if (!this.editable) {
      const fresh = this.lines.splice(0); // out as a message of their own: not kept
      if (fresh.length > 0) await this.chat.sendText(this.to, fresh.join("\n"));
      return;
    }
    const id = await this.messageId;
    if (!id || this.finished) return;
    await this.chat.editText(this.to, id, this.render());
  }

  private render(): string {
    return this.lines.join("\n");
  }
}
