import { isDeepStrictEqual } from "node:util";
import type { Message } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { chatId, int, json, parseParams } from "../api/params.ts";
import { formatText } from "../formatting/format.ts";
import type { StoredMessage } from "../state/chats.ts";
import { checkReplyMarkup } from "../state/reply-markup.ts";
import { type TelegramState, unixTime } from "../state/state.ts";
import type { MethodHandler } from "./method.ts";
import { postFromBot, sendOptions, textOptions } from "./outgoing.ts";

// sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage and sendChatAction, with the
// real API's refusals: empty or over-long text, unparsable markup, an edit that changes nothing, an
// edit of a message that is gone or not the bot's. An edit without reply_markup removes the inline
// keyboard, as on the real server.

const MAX_TEXT = 4096;
const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

const sendMessageParams = z.object({ ...sendOptions, ...textOptions, text: z.string() });

const target = {
  chat_id: chatId.optional(),
  message_id: int.optional(),
  inline_message_id: z.string().optional(),
};
const editTextParams = z.object({
  ...target,
  ...textOptions,
  text: z.string(),
  reply_markup: json(z.unknown()).optional(),
});
const editMarkupParams = z.object({ ...target, reply_markup: json(z.unknown()).optional() });
const deleteParams = z.object({ chat_id: chatId, message_id: int });
const ACTIONS = [
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
] as const;
const chatActionParams = z.object({ chat_id: chatId, action: z.string() });

function formattedText(
  text: string,
  parseMode: string | undefined,
  entities: Parameters<typeof formatText>[2],
) {
  const formatted = formatText(text, parseMode, entities);
  if (!formatted.text.trim()) throw badRequest("message text is empty");
  if (formatted.text.length > MAX_TEXT) throw badRequest("message is too long");
  return formatted;
}

const sendMessage: MethodHandler = (state, raw) => {
  const params = parseParams(sendMessageParams, raw);
  const formatted = formattedText(params.text, params.parse_mode, params.entities);
  return postFromBot(state, params, formatted);
};

function editable(
  state: TelegramState,
  chat: number | string | undefined,
  messageId: number | undefined,
): StoredMessage {
  if (chat === undefined || messageId === undefined) throw badRequest("message to edit not found");
  const stored = state.chats.find(state.chats.resolve(chat).id, messageId);
  if (!stored) throw badRequest("message to edit not found");
  if (stored.sender !== "bot") throw badRequest("message can't be edited");
  return stored;
}

function applyEdit(state: TelegramState, stored: StoredMessage, changes: Partial<Message>): Message {
  const current = stored.message;
  const unchanged = Object.entries(changes).every(([key, value]) =>
    isDeepStrictEqual(current[key as keyof Message], value),
  );
  if (unchanged) throw badRequest(NOT_MODIFIED);
  return state.chats.edit(stored, changes, unixTime(state));
}

const editMessageText: MethodHandler = (state, raw) => {
  const params = parseParams(editTextParams, raw);
  const stored = editable(state, params.chat_id, params.message_id);
  if (stored.message.text === undefined) throw badRequest("there is no text in the message to edit");
  const formatted = formattedText(params.text, params.parse_mode, params.entities);
  return applyEdit(state, stored, {
    text: formatted.text,
    entities: formatted.entities,
    reply_markup: checkReplyMarkup(params.reply_markup, true) as Message["reply_markup"],
  });
};

const editMessageReplyMarkup: MethodHandler = (state, raw) => {
  const params = parseParams(editMarkupParams, raw);
  const stored = editable(state, params.chat_id, params.message_id);
  return applyEdit(state, stored, {
    reply_markup: checkReplyMarkup(params.reply_markup, true) as Message["reply_markup"],
  });
};

const deleteMessage: MethodHandler = (state, raw) => {
  const params = parseParams(deleteParams, raw);
  const stored = state.chats.find(state.chats.resolve(params.chat_id).id, params.message_id);
  if (!stored) throw badRequest("message to delete not found");
  stored.deleted = true;
  return true;
};

const sendChatAction: MethodHandler = (state, raw) => {
  const params = parseParams(chatActionParams, raw);
  state.chats.resolve(params.chat_id);
  if (!(ACTIONS as readonly string[]).includes(params.action))
    throw badRequest("wrong parameter action in request");
  return true;
};

export const messageMethods = {
  sendMessage,
  editMessageText,
  editMessageReplyMarkup,
  deleteMessage,
  sendChatAction,
};
