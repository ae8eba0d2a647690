import type { Chat, Message, MessageEntity, Update, User } from "grammy/types";
import { type MessageFields, quoted } from "./state/chats.ts";
import { mimeTypeFor } from "./state/files.ts";
import { inlineKeyboardOf } from "./state/reply-markup.ts";
import { type TelegramState, unixTime } from "./state/state.ts";
import { userEntities } from "./user-entities.ts";

// What users do, as updates queued for the bot: a text (with the entities a client would attach),
// a document or photo with a caption (the file kept by the fake, so getFile and the download work), a
// button press on an inline keyboard the bot sent. These throw a plain Error for a test's mistake
// (replying to a message that does not exist, pressing a button that is not there).

export interface UserMessageInput {
  from: User;
  /** Default: the private chat with `from`. */
  chat?: Chat;
  /** message_id of the message (the bot's or a user's) this one replies to. */
  replyTo?: number;
}

export interface TextInput extends UserMessageInput {
  text: string;
  /** Prefix the text with "@<bot username> ", as a mention in a group. */
  mentionBot?: boolean;
  /** Instead of the entities a client would attach (bot commands, @mentions). */
  entities?: MessageEntity[];
}

export interface DocumentInput extends UserMessageInput {
  data: Buffer | string;
  filename: string;
  mimeType?: string;
  caption?: string;
}

export interface PhotoInput extends UserMessageInput {
  data: Buffer | string;
  caption?: string;
  width?: number;
  height?: number;
}

/** A voice note as the Telegram apps record it (OGG/Opus). */
export interface VoiceInput extends UserMessageInput {
  data: Buffer | string;
  /** Seconds. */
  duration?: number;
  caption?: string;
}

export interface ButtonPressInput {
  from: User;
  chat: Chat;
  messageId: number;
  /** The callback_data of the button pressed. */
  data: string;
}

function userMessage(state: TelegramState, input: UserMessageInput, fields: MessageFields): Update {
  const chat = input.chat ?? privateChatOf(input.from);
  state.chats.add(chat);
  let replyTo: Message | undefined;
  if (input.replyTo !== undefined) {
    replyTo = state.chats.find(chat.id, input.replyTo)?.message;
    if (!replyTo)
      throw new Error(`fake-telegram: no message ${input.replyTo} in chat ${chat.id} to reply to`);
  }
  const message = state.chats.append(
    chat,
    "user",
    {
      from: input.from,
      ...fields,
      ...(replyTo ? { reply_to_message: quoted(replyTo) } : {}),
    } as MessageFields,
    unixTime(state),
  );
  // Users write in private chats and groups, never in channels (those come as channel_post).
  return state.updates.push({ message: message as NonNullable<Update["message"]> });
}

export const privateChatOf = (user: User): Chat.PrivateChat => ({
  id: user.id,
  type: "private",
  first_name: user.first_name,
  ...(user.last_name ? { last_name: user.last_name } : {}),
  ...(user.username ? { username: user.username } : {}),
});

const captionOf = (caption: string | undefined) => {
  if (caption === undefined) return {};
  const entities = userEntities(caption);
  return { caption, ...(entities.length ? { caption_entities: entities } : {}) };
};

export function injectText(state: TelegramState, input: TextInput): Update {
  const text = input.mentionBot ? `@${state.bot.username} ${input.text}` : input.text;
  const entities = input.entities ?? userEntities(text);
  return userMessage(state, input, { text, ...(entities.length ? { entities } : {}) });
}

export function injectDocument(state: TelegramState, input: DocumentInput): Update {
  const mimeType = input.mimeType ?? mimeTypeFor(input.filename);
  const file = state.files.put("documents", Buffer.from(input.data), input.filename, mimeType);
  const { data: _, file_path: __, ...document } = file;
  return userMessage(state, input, { document, ...captionOf(input.caption) });
}

export function injectPhoto(state: TelegramState, input: PhotoInput): Update {
  const file = state.files.put("photos", Buffer.from(input.data));
  const size = {
    file_id: file.file_id,
    file_unique_id: file.file_unique_id,
    file_size: file.file_size,
    width: input.width ?? 1280,
    height: input.height ?? 960,
  };
  return userMessage(state, input, { photo: [size], ...captionOf(input.caption) });
}

export function injectVoice(state: TelegramState, input: VoiceInput): Update {
  const file = state.files.put("voice", Buffer.from(input.data), undefined, "audio/ogg");
  const voice = {
    file_id: file.file_id,
    file_unique_id: file.file_unique_id,
    file_size: file.file_size,
    duration: input.duration ?? 1,
    mime_type: "audio/ogg",
  };
  return userMessage(state, input, { voice, ...captionOf(input.caption) });
}

export function pressButton(state: TelegramState, input: ButtonPressInput): Update {
  const stored = state.chats.find(input.chat.id, input.messageId);
  const buttons = inlineKeyboardOf(stored?.message.reply_markup)?.flat() ?? [];
  if (!buttons.some((button) => "callback_data" in button && button.callback_data === input.data)) {
    throw new Error(
      `fake-telegram: message ${input.messageId} in chat ${input.chat.id} has no button "${input.data}"`,
    );
  }
  return state.updates.push({
    callback_query: {
      id: state.callbacks.add(),
      from: input.from,
      message: stored?.message,
      chat_instance: String(BigInt(input.chat.id) * 7919n),
      data: input.data,
    },
  });
}
