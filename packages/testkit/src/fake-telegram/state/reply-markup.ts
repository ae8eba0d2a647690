import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";

// reply_markup checks the real API makes: an inline button needs exactly one action, callback_data is
// 1–64 bytes. Reply keyboards, remove_keyboard and force_reply are kept as sent.

const button = z.looseObject({ text: z.string() });
const inlineMarkup = z.looseObject({ inline_keyboard: z.array(z.array(button)) });
const otherMarkup = z.union([
  z.looseObject({ keyboard: z.array(z.array(z.unknown())) }),
  z.looseObject({ remove_keyboard: z.literal(true) }),
  z.looseObject({ force_reply: z.literal(true) }),
]);

const DECORATIONS = new Set(["text", "icon_custom_emoji_id", "style"]);

export type ReplyMarkup = InlineKeyboardMarkup | Record<string, unknown>;

/** The markup as the message will carry it; `inlineOnly` for edits, which take inline keyboards only. */
export function checkReplyMarkup(value: unknown, inlineOnly = false): ReplyMarkup | undefined {
  if (value === undefined) return undefined;
  const inline = inlineMarkup.safeParse(value);
  if (inline.success) {
    for (const row of inline.data.inline_keyboard) for (const item of row) checkButton(item);
    return inline.data as unknown as InlineKeyboardMarkup;
  }
  if (!inlineOnly && otherMarkup.safeParse(value).success) return value as Record<string, unknown>;
  throw badRequest(
    inlineOnly
      ? "can't parse inline keyboard markup JSON object"
      : "can't parse reply keyboard markup JSON object",
  );
}

function checkButton(item: Record<string, unknown>): void {
  const actions = Object.keys(item).filter((key) => !DECORATIONS.has(key));
  if (actions.length === 0) {
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  const data = item.callback_data;
  if (data !== undefined) {
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : 0;
    if (bytes < 1 || bytes > 64) throw badRequest("BUTTON_DATA_INVALID");
  }
}

export const inlineKeyboardOf = (markup: unknown): InlineKeyboardButton[][] | undefined =>
  (markup as InlineKeyboardMarkup | undefined)?.inline_keyboard;
