import type { InlineKeyboardMarkup, ReplyParameters } from "grammy/types";
import { type Destination, type OutgoingButton, PlatformError } from "../platform-adapter.ts";

// The parameters of what the bot sends: where to, as a reply to what, with which buttons. Ids are
// the platform's own, as strings; Telegram takes a chat id as a numeric string.

export const chatIdOf = (to: Destination): string => to.chatId ?? to.userId;

/** A message id from the shared layer; a bad one is refused for good (no retry can fix it). */
export function messageIdOf(id: string): number {
  if (!/^\d{1,15}$/.test(id)) throw new PlatformError("permanent", `not a Telegram message id: ${id}`);
  return Number(id);
}

/** A reply that still goes out when the message it answers was deleted meanwhile. */
export const replyParameters = (replyTo: string): ReplyParameters => ({
  message_id: messageIdOf(replyTo),
  allow_sending_without_reply: true,
});

export const inlineKeyboard = (buttons: OutgoingButton[][]): InlineKeyboardMarkup => ({
  inline_keyboard: buttons.map((row) =>
    row.map((button) => ({ text: button.label, callback_data: button.data })),
  ),
});

/** Answers are rendered to HTML by the shared layer; a link in them should not grow a preview card. */
export const TEXT_OPTIONS = {
  parse_mode: "HTML",
  link_preview_options: { is_disabled: true },
} as const;
