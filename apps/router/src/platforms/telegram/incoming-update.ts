import type { ButtonPress, ChannelMessage, ChannelRef, Sender } from "../platform-adapter.ts";
import { type BotIdentity, type EntityText, mentionsBot, withoutBotName } from "./addressing.ts";
import { attachmentsOf } from "./attachments.ts";
import {
  callbackQuerySchema,
  messageSchema,
  type TelegramChat,
  type TelegramMessage,
  type TelegramUser,
  updateEnvelopeSchema,
} from "./update-schema.ts";

// One Telegram update, read into what the shared layer takes: a message, a button press, or the
// reason it is neither (a channel post, an edit, a bot's message, a shape we do not know).

export type IncomingUpdate =
  | { kind: "message"; message: ChannelMessage }
  | { kind: "button"; press: ButtonPress; callbackQueryId: string }
  | { kind: "ignore"; reason: string };

/** What the adapter asks Telegram for; everything else it would only ignore. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** Message kinds the shared layer cannot read: the sender is told so. Service messages are not here. */
const UNSUPPORTED = [
  "sticker",
  "video",
  "video_note",
  "animation",
  "contact",
  "location",
  "venue",
  "poll",
  "dice",
  "game",
  "story",
  "invoice",
  "paid_media",
  "checklist",
] as const;

/** callback_data is at most 64 bytes; anything longer was not sent by us. */
const MAX_CALLBACK_DATA_BYTES = 64;

const ignore = (reason: string): IncomingUpdate => ({ kind: "ignore", reason });

function channelOf(chat: TelegramChat): ChannelRef | undefined {
  if (chat.type === "private") return { id: String(chat.id), type: "private" };
  if (chat.type === "group" || chat.type === "supergroup") return { id: String(chat.id), type: "group" };
  return undefined;
}

function senderOf(user: TelegramUser): Sender {
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username;
  return { id: String(user.id), ...(name ? { name } : {}), isBot: user.is_bot };
}

function entityText(message: TelegramMessage): EntityText {
  return message.text !== undefined
    ? { text: message.text, entities: message.entities ?? [] }
    : { text: message.caption ?? "", entities: message.caption_entities ?? [] };
}

function readMessage(raw: unknown, bot: BotIdentity, dedupeKey: string): IncomingUpdate {
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) return ignore("malformed message");
  const message = parsed.data;
  const channel = channelOf(message.chat);
  if (!channel) return ignore(`message in a ${message.chat.type} chat`);
  // Without `from` it was sent on behalf of a chat (an anonymous admin, a linked channel).
  if (!message.from) return ignore("message without a sender");
  if (message.from.is_bot) return ignore("message from a bot");
  const attachments = attachmentsOf(message);
  const unsupported =
    message.text === undefined && attachments.length === 0
      ? UNSUPPORTED.find((kind) => message[kind] !== undefined)
      : undefined;
  if (message.text === undefined && attachments.length === 0 && !unsupported) {
    return ignore("service message");
  }
  const body = entityText(message);
  const repliesToBot = message.reply_to_message?.from?.id === bot.id;
  return {
    kind: "message",
    message: {
      id: String(message.message_id),
      channel,
      sender: senderOf(message.from),
      text: withoutBotName(body, bot),
      attachments,
      isMention: channel.type === "private" || repliesToBot || mentionsBot(body, bot),
      ...(message.reply_to_message ? { replyTo: String(message.reply_to_message.message_id) } : {}),
      dedupeKeys: [dedupeKey],
      ...(unsupported ? { unsupported } : {}),
    },
  };
}

function readCallbackQuery(raw: unknown): IncomingUpdate {
  const parsed = callbackQuerySchema.safeParse(raw);
  if (!parsed.success) return ignore("malformed callback query");
  const query = parsed.data;
  if (query.from.is_bot) return ignore("callback query from a bot");
  if (!query.data) return ignore("callback query without data");
  if (Buffer.byteLength(query.data) > MAX_CALLBACK_DATA_BYTES) return ignore("callback data over 64 bytes");
  if (!query.message) return ignore("callback query on an inline-mode message");
  const channel = channelOf(query.message.chat);
  if (!channel) return ignore(`callback query in a ${query.message.chat.type} chat`);
  return {
    kind: "button",
    callbackQueryId: query.id,
    press: {
      channel,
      sender: senderOf(query.from),
      data: query.data,
      messageId: String(query.message.message_id),
    },
  };
}

export function readUpdate(raw: unknown, bot: BotIdentity): IncomingUpdate {
  const envelope = updateEnvelopeSchema.safeParse(raw);
  if (!envelope.success) return ignore("not an update");
  const update = envelope.data;
  if (update.message !== undefined) return readMessage(update.message, bot, `update:${update.update_id}`);
  if (update.callback_query !== undefined) return readCallbackQuery(update.callback_query);
  const kind = Object.keys(update).find((key) => key !== "update_id") ?? "empty";
  return ignore(`${kind} update`);
}
