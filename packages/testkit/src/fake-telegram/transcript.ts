import type { InlineKeyboardButton } from "grammy/types";
import type { MessageVersion, StoredMessage } from "./state/chats.ts";
import { inlineKeyboardOf } from "./state/reply-markup.ts";

// A chat as its user sees it: each message (the bot's and the users') with its current text or
// caption, attachment, inline keyboard and the versions an edit replaced; and a plain-text
// rendering for assertions that read like the chat.

export interface TranscriptEntry {
  message_id: number;
  from: "bot" | "user";
  /** @username, or the first name when there is none. */
  sender: string;
  date: number;
  text?: string;
  caption?: string;
  document?: { file_id: string; file_name?: string };
  photo?: { file_id: string };
  replyTo?: number;
  keyboard?: InlineKeyboardButton[][];
  /** Earlier versions replaced by edits, oldest first. */
  history: MessageVersion[];
  deleted: boolean;
}

export function transcriptEntry(stored: StoredMessage): TranscriptEntry {
  const { message } = stored;
  const from = message.from;
  const photo = message.photo?.at(-1);
  const keyboard = inlineKeyboardOf(message.reply_markup);
  return {
    message_id: message.message_id,
    from: stored.sender,
    sender: from?.username ? `@${from.username}` : (from?.first_name ?? ""),
    date: message.date,
    ...(message.text !== undefined ? { text: message.text } : {}),
    ...(message.caption !== undefined ? { caption: message.caption } : {}),
    ...(message.document
      ? { document: { file_id: message.document.file_id, file_name: message.document.file_name } }
      : {}),
    ...(photo ? { photo: { file_id: photo.file_id } } : {}),
    ...(message.reply_to_message ? { replyTo: message.reply_to_message.message_id } : {}),
    ...(keyboard ? { keyboard } : {}),
    history: stored.history,
    deleted: stored.deleted,
  };
}

const buttonLabel = (button: InlineKeyboardButton) =>
  "callback_data" in button ? `[${button.text} → ${button.callback_data}]` : `[${button.text}]`;

/** One line per message, e.g. `#2 bot (reply to #1, edited): Hello` then a line per keyboard row. */
export function renderTranscript(entries: TranscriptEntry[]): string {
  return entries
    .filter((entry) => !entry.deleted)
    .flatMap((entry) => {
      const notes = [
        entry.replyTo !== undefined ? `reply to #${entry.replyTo}` : "",
        entry.history.length ? "edited" : "",
      ].filter(Boolean);
      const who = entry.from === "bot" ? "bot" : entry.sender;
      const attachment = entry.document
        ? `[document ${entry.document.file_name ?? ""}] `
        : entry.photo
          ? "[photo] "
          : "";
      const head = `#${entry.message_id} ${who}${notes.length ? ` (${notes.join(", ")})` : ""}: ${attachment}${entry.text ?? entry.caption ?? ""}`;
      return [head, ...(entry.keyboard ?? []).map((row) => `   ${row.map(buttonLabel).join(" ")}`)];
    })
    .join("\n");
}
