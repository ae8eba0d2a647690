import type { Logger } from "@phonework/runtime";
import type {
  ChatAdapter,
  ChatAddress,
  MessageListener,
  OutgoingFile,
  SendOptions,
  SentMessage,
} from "./chat-adapter.ts";

// All configured chat adapters behind one outbox, picked by the address's platform.
// Sending never throws to the caller: a failed send is logged and reported as undefined.
// Sends waiting for one chat are bounded: past `maxPerChat` the send is refused at once, so a
// flood of notices cannot grow the router's memory (the node's outbox keeps what was refused).

export class ChatHub {
  private readonly byPlatform: Map<string, ChatAdapter>;
  private readonly waiting = new Map<string, number>();
  private muted = false;

  constructor(
    adapters: ChatAdapter[],
    private readonly logger: Logger,
    private readonly maxPerChat = 200,
  ) {
    this.byPlatform = new Map(adapters.map((adapter) => [adapter.platform, adapter]));
  }

  /** Each adapter's connection state, for /health. */
  statuses(): Array<Record<string, unknown>> {
    return [...this.byPlatform.values()].map(
      (adapter) => adapter.status?.() ?? { platform: adapter.platform },
    );
  }

  /** Adapters that receive events over HTTP. */
  webhooks(): Array<NonNullable<ChatAdapter["webhook"]>> {
    return [...this.byPlatform.values()].flatMap((adapter) => (adapter.webhook ? [adapter.webhook] : []));
  }

  get platforms(): string[] {
    return [...this.byPlatform.keys()];
  }

  async start(onMessage: MessageListener): Promise<void> {
    for (const adapter of this.byPlatform.values()) await adapter.start(onMessage);
  }

  /** Stops receiving; sending keeps working until `mute()`. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.byPlatform.values()].map((adapter) => adapter.stop()));
  }

  /** Drops every later send (used while shutting down). */
  mute(): void {
    this.muted = true;
  }

  sendText(to: ChatAddress, text: string, options?: SendOptions): Promise<SentMessage | undefined> {
    return this.attempt(to, "sendText", (adapter) => adapter.sendText(to, text, options));
  }

  async editText(to: ChatAddress, messageId: string, text: string): Promise<void> {
    await this.attempt(to, "editText", (adapter) => adapter.editText(to, messageId, text));
  }

  sendFile(to: ChatAddress, file: OutgoingFile): Promise<SentMessage | undefined> {
    return this.attempt(to, "sendFile", (adapter) => adapter.sendFile(to, file));
  }

  private async attempt<T>(to: ChatAddress, what: string, run: (adapter: ChatAdapter) => Promise<T>) {
    if (this.muted) return undefined;
    const adapter = this.byPlatform.get(to.platform);
    if (!adapter) {
      this.logger.warn({ platform: to.platform, userId: to.userId }, `${what}: no adapter for platform`);
      return undefined;
    }
    const chat = `${to.platform}/${to.chatId ?? to.userId}`;
    const waiting = this.waiting.get(chat) ?? 0;
    if (waiting >= this.maxPerChat) {
      this.logger.warn(
        { platform: to.platform, userId: to.userId, waiting },
        `${what}: chat queue full; refused`,
      );
      return undefined;
    }
    this.waiting.set(chat, waiting + 1);
    try {
      return await run(adapter);
    } catch (error) {
      this.logger.error({ err: error, platform: to.platform, userId: to.userId }, `${what} failed`);
      return undefined;
    } finally {
      const left = (this.waiting.get(chat) ?? 1) - 1;
      if (left > 0) this.waiting.set(chat, left);
      else this.waiting.delete(chat);
    }
  }
}
