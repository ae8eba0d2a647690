import type { BotCommand, Chat, Message, ReactionTypeEmoji, Update, User, UserFromGetMe } from "grammy/types";
import type { TelegramCall } from "./calls.ts";
import type { TelegramFault } from "./faults.ts";
import type { ButtonPressInput, DocumentInput, PhotoInput, TextInput, VoiceInput } from "./inject.ts";
import type { CallbackAnswer } from "./state/callback-queries.ts";
import type { StoredFile } from "./state/files.ts";
import type { SentFile } from "./state/state.ts";
import type { Acknowledgement, UpdateBody } from "./state/updates.ts";
import type { WebhookAttempt, WebhookConfig } from "./state/webhook.ts";
import type { TranscriptEntry } from "./transcript.ts";

export type {
  Acknowledgement,
  ButtonPressInput,
  CallbackAnswer,
  DocumentInput,
  PhotoInput,
  SentFile,
  StoredFile,
  TelegramCall,
  TelegramFault,
  TextInput,
  TranscriptEntry,
  UpdateBody,
  VoiceInput,
  WebhookAttempt,
  WebhookConfig,
};

export interface FakeTelegramOptions {
  /** The bot's token (default: "<botId>:AA…" random). Calls with any other token get 401. */
  token?: string;
  botId?: number;
  /** The bot's username, without "@" (default "phonework_test_bot"). */
  username?: string;
  firstName?: string;
  /** Clock for message dates and call times (default Date.now). Waiting always uses real time. */
  now?: () => number;
  /** Longest a getUpdates long poll is held, whatever its timeout (default 2000 ms). */
  maxPollMs?: number;
  /** update_id of the first update (default 100000001). */
  firstUpdateId?: number;
  /** Pause before a failed webhook delivery is retried (default 100 ms). */
  webhookRetryMs?: number;
  /** How long one webhook delivery may take before it counts as failed (default 5000 ms). */
  webhookTimeoutMs?: number;
}

export interface FakeTelegram {
  /** Pass as grammY's `client.apiRoot`. */
  url: string;
  token: string;
  /** What getMe answers. */
  bot: UserFromGetMe;
  /** Every call received, in order (in-flight ones without a status yet). */
  calls: TelegramCall[];
  callsOf(method: string): TelegramCall[];
  /** The first answered call of `method` (already made or still to come) that `predicate` accepts. */
  waitForCall(
    method: string,
    predicate?: (call: TelegramCall) => boolean,
    timeoutMs?: number,
  ): Promise<TelegramCall>;

  /** A new user (ids count up from 100000001). */
  user(input?: Partial<Pick<User, "id" | "first_name" | "last_name" | "username" | "language_code">>): User;
  /** The private chat between `user` and the bot (its id is the user's). */
  privateChat(user: User): Chat.PrivateChat;
  /** A new group the bot is a member of (a supergroup with `supergroup: true`). */
  group(input?: { title?: string; id?: number; supergroup?: boolean; username?: string }): Chat;

  /** A user sends a text; bot commands and @mentions get their entities. Returns the queued update. */
  injectText(input: TextInput): Update;
  /** A user sends a document (stored in the fake, so getFile and the download work), with a caption. */
  injectDocument(input: DocumentInput): Update;
  injectPhoto(input: PhotoInput): Update;
  /** A voice note (OGG/Opus), downloadable through getFile like the others. */
  injectVoice(input: VoiceInput): Update;
  /** A user presses an inline button (callback_data) on a message the bot sent; throws if it is not there. */
  pressButton(input: ButtonPressInput): Update;
  /** Any other update, given without its update_id. */
  injectUpdate(body: UpdateBody): Update;

  /** Updates not yet acknowledged. */
  pendingUpdates(): Update[];
  /** Every confirmation (getUpdates offset or webhook 2xx), in order. */
  acknowledgements(): Acknowledgement[];
  /** Every update with a smaller id is acknowledged (0 before any). */
  acknowledgedOffset(): number;
  isAcknowledged(updateId: number): boolean;
  waitForAcknowledged(updateId: number, timeoutMs?: number): Promise<void>;

  webhook(): WebhookConfig | undefined;
  /** Every webhook delivery attempt, with its status or error. */
  webhookAttempts(): WebhookAttempt[];
  waitForWebhookAttempt(
    predicate?: (attempt: WebhookAttempt) => boolean,
    timeoutMs?: number,
  ): Promise<WebhookAttempt>;

  /** The chat as its user sees it: every message, current text, keyboards, edit history. */
  transcript(chatId: number): TranscriptEntry[];
  /** The transcript as text, one line per message plus one per keyboard row. */
  renderTranscript(chatId: number): string;
  /** A message as the chat shows it now. */
  message(chatId: number, messageId: number): Message | undefined;
  /** Files the bot uploaded (sendDocument, sendPhoto, sendVoice), with their bytes. */
  sentFiles(): SentFile[];
  file(fileId: string): StoredFile | undefined;
  callbackAnswers(): CallbackAnswer[];
  /** The command list setMyCommands stored for a scope and language (default scope when omitted). */
  commands(scope?: object, languageCode?: string): BotCommand[];
  /** The bot's reactions on a message (setMessageReaction), none when it set none. */
  reactions(chatId: number, messageId: number): ReactionTypeEmoji[];

  /** The next `times` (default 1) calls of the method answer with this fault instead. */
  failNext(method: string | RegExp, fault: TelegramFault): void;
  /** Answers held long polls, stops webhook delivery, closes every connection. */
  close(): Promise<void>;
}
