import { randomUUID } from "node:crypto";
import { KeyedQueue, type Logger } from "@phonework/runtime";
import { splitQualified } from "../ids/qualified-id.ts";
import type {
  Capabilities,
  Destination,
  PlatformAdapter,
  PlatformEvents,
} from "../platforms/platform-adapter.ts";
import type { ButtonStore } from "./button-store.ts";
import type { ChatAddress, OutgoingFile, SendOptions, SentMessage } from "./chat-types.ts";
import {
  BASIC_DIALECTS,
  type Dialects,
  loadDialects,
  renderForPlatform,
} from "./render/render-for-platform.ts";
import { asPlatformError, type RetryPolicy, withPlatformRetry } from "./send-retry.ts";
import { deliveryFailedText, fileTooLargeText } from "./user-messages.ts";

// Every adapter behind one outbox, picked by the address's adapter name. What is the same on
// every platform happens here, once: the Markdown is rendered to the platform's dialect and cut
// to its length; each chat has one serial queue (a reply's parts, progress edits and notices
// arrive in order); each send is retried on rate limits and network errors under one idempotency
// key; buttons are registered so a press can be checked. Sending never throws to the caller: a
// failure is logged, the chat is told where possible, and the result is undefined.
// Sends waiting for one chat are bounded: past `maxPerChat` a send is refused at once, so a flood
// of notices cannot grow the router's memory (the node's outbox keeps what was refused).

export type Renderer = (markdown: string, capabilities: Capabilities) => string[];

export interface ChatHubDeps {
  logger: Logger;
  buttons: ButtonStore;
  retry: RetryPolicy;
  maxPerChat?: number;
  render?: Renderer;
}

/** What an empty answer shows: platforms refuse empty messages, and silence looks like a hang. */
const EMPTY_TEXT = "(empty reply)";

/** The platform's own id for a qualified one (`telegram:123` → `123` on adapter "telegram"). */
const localId = (qualified: string, adapter: string) => splitQualified(qualified, [adapter])?.id ?? qualified;

export class ChatHub {
  private readonly byName: Map<string, PlatformAdapter>;
  private readonly queue = new KeyedQueue();
  private readonly waiting = new Map<string, number>();
  private readonly render: Renderer;
  private readonly maxPerChat: number;
  private muted = false;
  /** Until `prepare()`, Markdown a parser would render is sent as written (escaped). */
  private dialects: Dialects = BASIC_DIALECTS;

  constructor(
    adapters: PlatformAdapter[],
    private readonly deps: ChatHubDeps,
  ) {
    this.byName = new Map(adapters.map((adapter) => [adapter.name, adapter]));
    const render: Renderer =
      deps.render ?? ((markdown, capabilities) => renderForPlatform(markdown, capabilities, this.dialects));
    this.render = (markdown, capabilities) => {
      const pieces = render(markdown, capabilities);
      return pieces.length > 0 ? pieces : render(EMPTY_TEXT, capabilities);
    };
    this.maxPerChat = deps.maxPerChat ?? 200;
  }

  get adapters(): PlatformAdapter[] {
    return [...this.byName.values()];
  }

  get platforms(): string[] {
    return [...this.byName.keys()];
  }

  adapter(name: string): PlatformAdapter | undefined {
    return this.byName.get(name);
  }

  canEdit(platform: string): boolean {
    return this.byName.get(platform)?.capabilities.canEdit ?? false;
  }

  /** Whether `markdown` goes out as one message on this platform (so it can replace another). */
  fitsOneMessage(platform: string, markdown: string): boolean {
    const adapter = this.byName.get(platform);
    return adapter !== undefined && this.render(markdown, adapter.capabilities).length === 1;
  }

  /** Each adapter's connection state, for /health. */
  statuses(): Array<Record<string, unknown>> {
    return this.adapters.map(
      (adapter) => adapter.status?.() ?? { platform: adapter.type, name: adapter.name },
    );
  }

  /** Adapters that receive events over HTTP. */
  webhooks(): Array<NonNullable<PlatformAdapter["webhook"]>> {
    return this.adapters.flatMap((adapter) => (adapter.webhook ? [adapter.webhook] : []));
  }

  /** Loads what rendering the adapters' dialects needs (a Markdown parser only where one is used). */
  async prepare(): Promise<void> {
    this.dialects = await loadDialects(this.adapters.map((adapter) => adapter.capabilities.markdown));
  }

  async start(eventsFor: (adapter: PlatformAdapter) => PlatformEvents): Promise<void> {
    for (const adapter of this.adapters) await adapter.start(eventsFor(adapter));
  }

  /** Stops receiving; sending keeps working until `mute()`. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.adapters.map((adapter) => adapter.stop()));
  }

  /** Drops every later send (used while shutting down). */
  mute(): void {
    this.muted = true;
  }

  isMuted(): boolean {
    return this.muted;
  }

  /** Sends Markdown text (in as many parts as the platform needs); resolves with the last part. */
  sendText(to: ChatAddress, text: string, options: SendOptions = {}): Promise<SentMessage | undefined> {
    return this.inOrder(to, "sendText", async (adapter, destination) => {
      const { capabilities } = adapter;
      const pieces = this.render(text, capabilities);
      const buttons =
        options.buttons && options.buttons.length > 0 && capabilities.canSendButtons
          ? this.deps.buttons.register(adapter.name, to.userId, options.buttons)
          : undefined;
      let last: SentMessage | undefined;
      try {
        for (const [index, piece] of pieces.entries()) {
          const idempotencyKey = randomUUID(); // the same on every retry of this part
          // Where a reply is a place (Slack's threads), every piece goes there, not only the first.
          const replyTo =
            (index === 0 || capabilities.replyIsPlace === true) && options.replyTo && capabilities.canReply
              ? options.replyTo
              : undefined;
          const lastPiece = index === pieces.length - 1;
          last = await this.retrying(() =>
            adapter.send(destination, piece, {
              idempotencyKey,
              ...(replyTo ? { replyTo } : {}),
              ...(options.thread && capabilities.threads !== "none" ? { thread: options.thread } : {}),
              ...(lastPiece && buttons ? { buttons } : {}),
            }),
          );
        }
      } catch (error) {
        await this.tellFailure(adapter, destination, error);
        throw error;
      }
      return last;
    });
  }

  /** Replaces a sent message's text; false where the platform cannot edit or the edit failed. */
  async editText(to: ChatAddress, messageId: string, text: string): Promise<boolean> {
    const done = await this.inOrder(to, "editText", async (adapter, destination) => {
      if (!adapter.capabilities.canEdit) return false;
      const [first] = this.render(text, adapter.capabilities);
      try {
        await this.retrying(() => adapter.edit(destination, messageId, first ?? ""));
      } catch (error) {
        if (asPlatformError(error).kind !== "not_modified") throw error;
      }
      return true;
    });
    return done ?? false;
  }

  sendFile(to: ChatAddress, file: OutgoingFile): Promise<SentMessage | undefined> {
    return this.inOrder(to, "sendFile", async (adapter, destination) => {
      const { capabilities } = adapter;
      const image = file.mimeType?.startsWith("image/") ?? false;
      const cap = image ? capabilities.maxImageBytes : capabilities.maxFileBytes;
      const [tooLarge] = this.render(
        fileTooLargeText(file.name, file.data.length, cap, adapter.type),
        capabilities,
      );
      const idempotencyKey = randomUUID(); // the same on every retry
      if (file.data.length > cap && tooLarge)
        return this.retrying(() => adapter.send(destination, tooLarge, { idempotencyKey }));
      try {
        return await this.retrying(() => adapter.sendFile(destination, file, { idempotencyKey }));
      } catch (error) {
        await this.tellFailure(adapter, destination, error);
        throw error;
      }
    });
  }

  private retrying<T>(call: () => Promise<T>): Promise<T> {
    return withPlatformRetry(call, this.deps.retry);
  }

  /** A refused send is worth one line in the chat (the platform may take a plain notice). */
  private async tellFailure(adapter: PlatformAdapter, to: Destination, error: unknown): Promise<void> {
    const failure = asPlatformError(error);
    if (failure.kind !== "permanent") return;
    const code = failure.details.code ?? failure.details.status;
    const [text] = this.render(deliveryFailedText(adapter.type, code), adapter.capabilities);
    if (!text) return;
    await adapter.send(to, text, { idempotencyKey: randomUUID() }).catch(() => undefined);
  }

  /** Runs `send` in the chat's queue; undefined when muted, unknown, over the bound, or failed. */
  private async inOrder<T>(
    to: ChatAddress,
    what: string,
    send: (adapter: PlatformAdapter, destination: Destination) => Promise<T>,
  ): Promise<T | undefined> {
    const { logger } = this.deps;
    if (this.muted) return undefined;
    const adapter = this.byName.get(to.platform);
    if (!adapter) {
      logger.warn({ platform: to.platform, userId: to.userId }, `${what}: no adapter for platform`);
      return undefined;
    }
    const chat = `${to.platform}/${to.chatId ?? to.userId}`;
    const waiting = this.waiting.get(chat) ?? 0;
    if (waiting >= this.maxPerChat) {
      logger.warn({ platform: to.platform, userId: to.userId, waiting }, `${what}: chat queue full; refused`);
      return undefined;
    }
    this.waiting.set(chat, waiting + 1);
    const destination: Destination = {
      userId: localId(to.userId, adapter.name),
      ...(to.chatId ? { chatId: localId(to.chatId, adapter.name) } : {}),
    };
    try {
      return await this.queue.run(chat, () => send(adapter, destination));
    } catch (error) {
      const failure = asPlatformError(error);
      logger.error(
        {
          err: failure.message,
          kind: failure.kind,
          ...failure.details,
          platform: to.platform,
          userId: to.userId,
        },
        `${what} failed`,
      );
      return undefined;
    } finally {
      const left = (this.waiting.get(chat) ?? 1) - 1;
      if (left > 0) this.waiting.set(chat, left);
      else this.waiting.delete(chat);
    }
  }
}
