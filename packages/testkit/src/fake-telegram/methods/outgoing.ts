import type { Chat, Message, User } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { bool, chatId, int, json, parseMode } from "../api/params.ts";
import { formatText } from "../formatting/format.ts";
import { type MessageFields, quoted } from "../state/chats.ts";
import { checkReplyMarkup, inlineKeyboardOf } from "../state/reply-markup.ts";
import { type TelegramState, unixTime } from "../state/state.ts";

// What every send method shares: the reply target (reply_parameters, or the older
// reply_to_message_id), reply_markup, caption formatting, and appending the bot's message to the chat.

const entity = z.looseObject({ type: z.string(), offset: int, length: int });

export const sendOptions = {
  chat_id: chatId,
  reply_parameters: json(
    z.looseObject({
      message_id: int,
      chat_id: chatId.optional(),
      allow_sending_without_reply: bool.optional(),
    }),
  ).optional(),
  reply_to_message_id: int.optional(),
  allow_sending_without_reply: bool.optional(),
  reply_markup: json(z.unknown()).optional(),
  message_thread_id: int.optional(),
  disable_notification: bool.optional(),
  protect_content: bool.optional(),
};

export const captionOptions = {
  caption: z.string().optional(),
  parse_mode: parseMode.optional(),
  caption_entities: json(z.array(entity)).optional(),
};

export const textOptions = {
  parse_mode: parseMode.optional(),
  entities: json(z.array(entity)).optional(),
};

type SendOptions = z.infer<z.ZodObject<typeof sendOptions>>;
type CaptionOptions = z.infer<z.ZodObject<typeof captionOptions>>;

const MAX_CAPTION = 1024;

export const botAsSender = (state: TelegramState): User => ({
  id: state.bot.id,
  is_bot: true,
  first_name: state.bot.first_name,
  username: state.bot.username,
});

export function captionFields(options: CaptionOptions): Partial<Message> {
  if (options.caption === undefined) return {};
  const formatted = formatText(options.caption, options.parse_mode, options.caption_entities);
  if (formatted.text.length > MAX_CAPTION) throw badRequest("message caption is too long");
  return {
    caption: formatted.text,
    ...(formatted.entities ? { caption_entities: formatted.entities } : {}),
  };
}

export function postFromBot(state: TelegramState, options: SendOptions, fields: MessageFields): Message {
  const chat = state.chats.resolve(options.chat_id);
  const replyTo = replyTarget(state, chat, options);
  const markup = checkReplyMarkup(options.reply_markup);
  return state.chats.append(
    chat,
    "bot",
    {
      from: botAsSender(state),
      ...fields,
      ...(replyTo ? { reply_to_message: quoted(replyTo) } : {}),
      // Only inline keyboards belong to the message; reply keyboards show in the user's app instead.
      ...(inlineKeyboardOf(markup) ? { reply_markup: markup } : {}),
    } as MessageFields,
    unixTime(state),
  );
}

function replyTarget(state: TelegramState, chat: Chat, options: SendOptions): Message | undefined {
  const messageId = options.reply_parameters?.message_id ?? options.reply_to_message_id;
  if (messageId === undefined) return undefined;
  const targetChat =
    options.reply_parameters?.chat_id !== undefined
      ? state.chats.resolve(options.reply_parameters.chat_id)
      : chat;
  const target = state.chats.find(targetChat.id, messageId);
  const tolerant =
    options.reply_parameters?.allow_sending_without_reply ?? options.allow_sending_without_reply ?? false;
  if (!target && !tolerant) throw badRequest("message to be replied not found");
  return target?.message;
}
