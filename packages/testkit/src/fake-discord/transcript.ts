import type { FakeMessage } from "./state.ts";

// A channel as its users see it: each message with its current text, buttons, files, the message
// it replies to and the versions edits replaced; and a plain-text rendering for assertions.

export interface TranscriptEntry {
  id: string;
  from: "bot" | "user";
  author: string;
  content: string;
  buttons: Array<Array<{ label: string; custom_id: string }>>;
  files: Array<{ filename: string; size: number }>;
  replyTo?: string;
  flags: number;
  ephemeral: boolean;
  /** The interaction it answers (a slash command's answer, a button's follow-up). */
  interaction?: string;
  history: Array<{ content: string }>;
  deleted: boolean;
}

export function transcriptEntry(message: FakeMessage, botId: string): TranscriptEntry {
  const rows = message.components as Array<{ components: Array<{ label?: string; custom_id?: string }> }>;
  return {
    id: message.id,
    from: message.author.id === botId ? "bot" : "user",
    author: message.author.username,
    content: message.content,
    buttons: rows.map((row) =>
      row.components.map((b) => ({ label: b.label ?? "", custom_id: b.custom_id ?? "" })),
    ),
    files: message.attachments.map((file) => ({ filename: file.filename, size: file.size })),
    ...(message.message_reference ? { replyTo: message.message_reference.message_id } : {}),
    flags: message.flags,
    ephemeral: message.ephemeral,
    ...(message.interaction ? { interaction: message.interaction } : {}),
    history: message.history.map((version) => ({ content: version.content })),
    deleted: message.deleted,
  };
}

/** One line per message, e.g. `bot (reply, edited): Hello`, then a line per button row. */
export function renderTranscript(entries: TranscriptEntry[]): string {
  return entries
    .filter((entry) => !entry.deleted)
    .flatMap((entry) => {
      const notes = [
        entry.replyTo ? "reply" : "",
        entry.history.length ? "edited" : "",
        entry.ephemeral ? "ephemeral" : "",
      ].filter(Boolean);
      const who = entry.from === "bot" ? "bot" : entry.author;
      const files = entry.files.map((file) => `[file ${file.filename}] `).join("");
      const head = `${who}${notes.length ? ` (${notes.join(", ")})` : ""}: ${files}${entry.content}`;
      return [
        head,
        ...entry.buttons.map((row) => `   ${row.map((b) => `[${b.label} → ${b.custom_id}]`).join(" ")}`),
      ];
    })
    .join("\n");
}
