import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { AccessPolicy } from "../access/adapter-access.ts";
import { ButtonStore } from "../chat/button-store.ts";
import { ChatHub, type Renderer } from "../chat/chat-hub.ts";
import type { IncomingMessage } from "../chat/chat-types.ts";
import { commandMenu } from "../chat/command-menu.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "../chat/send-retry.ts";
import type { RouterConfig } from "../config/router-config.ts";
import type { PlatformAdapter, PlatformCommand } from "../platforms/platform-adapter.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import { SeenEvents } from "../storage/seen-events.ts";
import type { VoiceInput } from "../voice/voice-input.ts";
import { voiceInputFor } from "../voice/voice-input-for.ts";
import { ChatInbox } from "./chat-inbox.ts";
import { ChatIntake } from "./chat-intake.ts";

// The shared chat layer around the configured adapters: one outbox (ChatHub) and one intake per
// adapter, over the stores they share in router.db (seen events, the inbox, buttons).

/** How often, at most, the command menu is recomputed while nodes come online. */
const MENU_EVERY_MS = 1000;

export interface ChatLayerOptions {
  adapters: PlatformAdapter[];
  /** Who may use each adapter (its admins and dm rules). */
  accessFor: (adapter: PlatformAdapter) => AccessPolicy;
  db: SqliteDatabase;
  now: () => number;
  seenTtlMs: number;
  buttonTtlMs: number;
  maxAttachmentBytes: number;
  maxPerChat: number;
  /** Hears voice notes before routing (the router's is built from the STT_* keys). */
  voice?: VoiceInput;
  retry?: RetryPolicy;
  render?: Renderer;
  logger: Logger;
}

export class ChatLayer {
  readonly hub: ChatHub;
  readonly seen: SeenEvents;
  private readonly inbox: ChatInbox;
  private readonly buttons: ButtonStore;
  private readonly intakes: ChatIntake[] = [];
  private stopped = false;

  /** The layer with the router's settings for TTLs, bounds and attachments. */
  static forRouter(
    config: RouterConfig,
    options: Pick<ChatLayerOptions, "adapters" | "accessFor" | "db" | "now" | "logger">,
  ): ChatLayer {
    return new ChatLayer({
      ...options,
      seenTtlMs: config.SEEN_EVENTS_TTL_S * 1000,
      buttonTtlMs: config.DELIVERED_TTL_S * 1000,
      // Attachments travel base64 in one forward frame (4/3 the size, plus the frame): what fits.
      maxAttachmentBytes: Math.floor(config.MAX_PAYLOAD_BYTES * 0.7),
      maxPerChat: config.MAX_CHAT_QUEUE,
      voice: voiceInputFor(config, options),
    });
  }

  constructor(private readonly options: ChatLayerOptions) {
    const { db, now } = options;
    this.seen = new SeenEvents(db, options.seenTtlMs, now);
    this.inbox = new ChatInbox(db, now);
    this.buttons = new ButtonStore(db, options.buttonTtlMs, now);
    this.hub = new ChatHub(options.adapters, {
      logger: options.logger,
      buttons: this.buttons,
      retry: options.retry ?? DEFAULT_RETRY,
      maxPerChat: options.maxPerChat,
      ...(options.render ? { render: options.render } : {}),
    });
  }

  /** Handles what was stored but not handled before the last stop, then starts every adapter. */
  async start(deliver: (message: IncomingMessage) => Promise<void>): Promise<void> {
    const intakes = new Map(
      this.hub.adapters.map((adapter) => [
        adapter.name,
        new ChatIntake({
          adapter,
          access: this.options.accessFor(adapter),
          seen: this.seen,
          inbox: this.inbox,
          buttons: this.buttons,
          chat: this.hub,
          deliver,
          maxAttachmentBytes: this.options.maxAttachmentBytes,
          ...(this.options.voice ? { voice: this.options.voice } : {}),
          logger: this.options.logger.child({ adapter: adapter.name }),
        }),
      ]),
    );
    this.intakes.push(...intakes.values());
    await this.hub.prepare();
    for (const intake of this.intakes) intake.resumeStored();
    await this.hub.start((adapter) => intakes.get(adapter.name) as ChatIntake);
  }

  /** Publishes the command menu where the platform has one; failures are only logged. */
  async publishCommands(commands: PlatformCommand[]): Promise<void> {
    await Promise.all(
      this.hub.adapters.map((adapter) =>
        adapter
          .setCommands?.(commands)
          .catch((error: unknown) =>
            this.options.logger.warn(
              { err: (error as Error).message, adapter: adapter.name },
              "setCommands failed",
            ),
          ),
      ),
    );
  }

  /**
   * Keeps the command menu equal to the router's commands and the nodes' (published when it
   * changes). Recomputed at most once a second: a reconnect storm brings thousands of nodes online
   * at once, and only platforms with a menu need it at all.
   */
  followCommandMenu(nodes: {
    list(): NodeInfo[];
    subscribe(listener: (event: { type: string }) => void): () => void;
  }): void {
    if (!this.hub.adapters.some((adapter) => adapter.setCommands)) return;
    let published = "";
    let timer: NodeJS.Timeout | undefined;
    const publish = () => {
      timer = undefined;
      if (this.stopped) return;
      const menu = commandMenu(nodes.list());
      const key = JSON.stringify(menu);
      if (key === published) return;
      published = key;
      void this.publishCommands(menu);
    };
    publish();
    nodes.subscribe((event) => {
      if (event.type === "online" && !timer) timer = setTimeout(publish, MENU_EVERY_MS).unref();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.hub.stop();
  }

  /** Resolves once every message received so far has been handed on. */
  async drain(): Promise<void> {
    await Promise.all(this.intakes.map((intake) => intake.drain()));
  }
}
