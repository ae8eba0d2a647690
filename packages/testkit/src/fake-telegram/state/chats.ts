import type { Chat, Message } from "grammy/types";
import { badRequest } from "../api/errors.ts";

// The chats the fake knows and every message in them, the bot's and the users', as the chat shows
// it now. Message ids count up per chat and are shared by both sides, as in private chats and basic
// groups. A chat exists once a test creates it; the bot cannot write to any other ("chat not found").

export interface MessageVersion {
  text?: string;
  caption?: string;
  reply_markup?: unknown;
  edit_date?: number;
}

export interface StoredMessage {
  /** The message as it shows now (after edits). */
  message: Message;
  sender: "bot" | "user";
  /** Earlier versions, oldest first; empty when never edited. */
  history: MessageVersion[];
  deleted: boolean;
}

interface ChatRecord {
  chat: Chat;
  nextMessageId: number;
  messages: StoredMessage[];
}

export type MessageFields = Omit<Message, "message_id" | "chat" | "date">;

/** The message as it is quoted inside a reply (without its own reply_to_message). */
export function quoted(message: Message): Message {
  const { reply_to_message: _, ...rest } = message;
  return rest as Message;
}

export class ChatStore {
  private readonly chats = new Map<number, ChatRecord>();

  add(chat: Chat): Chat {
    if (!this.chats.has(chat.id)) this.chats.set(chat.id, { chat, nextMessageId: 1, messages: [] });
    return chat;
  }

  /** A `chat_id` parameter (id or "@username") to its chat, or the real "chat not found". */
  resolve(chatId: number | string): Chat {
    const record =
      typeof chatId === "number"
        ? this.chats.get(chatId)
        : [...this.chats.values()].find((r) => `@${r.chat.username ?? ""}` === chatId);
    if (!record) throw badRequest("chat not found");
    return record.chat;
  }

  append(chat: Chat, sender: StoredMessage["sender"], fields: MessageFields, date: number): Message {
    const record = this.record(chat.id);
    const message = { message_id: record.nextMessageId, date, chat, ...fields } as Message;
    record.nextMessageId += 1;
    record.messages.push({ message, sender, history: [], deleted: false });
    return message;
  }

  find(chatId: number, messageId: number): StoredMessage | undefined {
    return this.chats.get(chatId)?.messages.find((m) => m.message.message_id === messageId && !m.deleted);
  }

  /** Replaces the message's content, keeping what it showed before in its history. */
  edit(stored: StoredMessage, changes: Partial<Message>, date: number): Message {
    const { text, caption, reply_markup, edit_date } = stored.message;
    stored.history.push({ text, caption, reply_markup, edit_date });
    const next: Message = { ...stored.message, ...changes, edit_date: date };
    for (const key of Object.keys(changes) as Array<keyof Message>) {
      if (changes[key] === undefined) delete next[key];
    }
    stored.message = next;
    return next;
  }

  messages(chatId: number): StoredMessage[] {
    return [...(this.chats.get(chatId)?.messages ?? [])];
  }

  private record(chatId: number): ChatRecord {
    const record = this.chats.get(chatId);
    if (!record) throw badRequest("chat not found");
    return record;
  }
}
