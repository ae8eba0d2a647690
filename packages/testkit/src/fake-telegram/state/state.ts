import type { UserFromGetMe } from "grammy/types";
import { CallbackQueries } from "./callback-queries.ts";
import { ChatStore } from "./chats.ts";
import { CommandLists } from "./commands.ts";
import { FileStore } from "./files.ts";
import { MessageReactions } from "./reactions.ts";
import { UpdateQueue } from "./updates.ts";
import { WebhookDelivery, type WebhookDeliveryOptions } from "./webhook.ts";

// Everything one fake Telegram holds for its one bot; the method handlers and the test helpers both
// work on it.

/** A file the bot uploaded with sendDocument, sendPhoto or sendVoice, with the bytes as received. */
export interface SentFile {
  method: "sendDocument" | "sendPhoto" | "sendVoice";
  chat_id: number;
  message_id: number;
  file_id: string;
  filename?: string;
  data: Buffer;
  caption?: string;
}

export interface TelegramState {
  token: string;
  bot: UserFromGetMe;
  /** Milliseconds since the epoch; message dates are this in seconds. */
  now: () => number;
  /** How long getUpdates may hold a long poll, whatever `timeout` asks for. */
  maxPollMs: number;
  chats: ChatStore;
  files: FileStore;
  updates: UpdateQueue;
  webhook: WebhookDelivery;
  callbacks: CallbackQueries;
  commands: CommandLists;
  reactions: MessageReactions;
  sentFiles: SentFile[];
  /** The getUpdates request being held; a newer one terminates it (409), as on the real server. */
  activePoll: AbortController | undefined;
}

export interface StateOptions {
  token: string;
  bot: UserFromGetMe;
  now: () => number;
  maxPollMs: number;
  firstUpdateId: number;
  webhook: WebhookDeliveryOptions;
}

export function createState(options: StateOptions): TelegramState {
  const updates = new UpdateQueue(options.firstUpdateId);
  return {
    token: options.token,
    bot: options.bot,
    now: options.now,
    maxPollMs: options.maxPollMs,
    chats: new ChatStore(),
    files: new FileStore(),
    updates,
    webhook: new WebhookDelivery(updates, options.webhook),
    callbacks: new CallbackQueries(),
    commands: new CommandLists(),
    reactions: new MessageReactions(),
    sentFiles: [],
    activePoll: undefined,
  };
}

export const unixTime = (state: TelegramState): number => Math.floor(state.now() / 1000);
