import type { AttachmentRef } from "../platform-adapter.ts";
import type { DiscordAttachment } from "./gateway-schema.ts";

// The files a message carries, as references the shared layer downloads later: the CDN url is
// the reference. Voice messages are attachments too (audio/ogg, with a duration), handed on as
// audio files.

/** The sender chose the name: keep its last path segment, no control characters, at most 200. */
export function safeName(name: string | undefined): string | undefined {
  const base = name
    ?.split(/[/\\]/)
    .pop()
    ?.replace(/\p{Cc}/gu, "")
    .trim()
    .slice(0, 200);
  return base && base !== "." && base !== ".." ? base : undefined;
}

export function attachmentsOf(attachments: DiscordAttachment[]): AttachmentRef[] {
  return attachments.map((attachment) => {
    const voice = attachment.duration_secs !== undefined;
    const fallback = voice ? `voice-message-${attachment.id}.ogg` : `attachment-${attachment.id}`;
    const mimeType = attachment.content_type ?? (voice ? "audio/ogg" : undefined);
    return {
      name: safeName(attachment.filename) ?? fallback,
      ref: attachment.url,
      ...(mimeType ? { mimeType } : {}),
      ...(attachment.size !== undefined ? { size: attachment.size } : {}),
      ...(attachment.duration_secs !== undefined ? { durationS: attachment.duration_secs } : {}),
    };
  });
}
