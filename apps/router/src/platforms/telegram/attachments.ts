import type { AttachmentRef } from "../platform-adapter.ts";
import type { TelegramMessage } from "./update-schema.ts";

// The files a message carries, as references the shared layer downloads later: a document under its
// own name, a photo in its largest size (Telegram sends every size it made, smallest first), a voice
// note (OGG/Opus) or an audio file as audio.

type PhotoSize = NonNullable<TelegramMessage["photo"]>[number];

const area = (size: PhotoSize) => size.width * size.height;

function largest(sizes: PhotoSize[] | undefined): PhotoSize | undefined {
  return sizes?.reduce((best, size) =>
    area(size) > area(best) || (area(size) === area(best) && (size.file_size ?? 0) > (best.file_size ?? 0))
      ? size
      : best,
  );
}

/** The sender chose the name (and the ids in it): keep its last path segment, no control characters. */
function safeName(name: string | undefined): string | undefined {
  const base = name
    ?.split(/[/\\]/)
    .pop()
    ?.replace(/\p{Cc}/gu, "")
    .trim();
  return base && base !== "." && base !== ".." ? base : undefined;
}

export function attachmentsOf(message: TelegramMessage): AttachmentRef[] {
  const attachments: AttachmentRef[] = [];
  const { document } = message;
  if (document) {
    attachments.push({
      name: safeName(document.file_name) ?? safeName(`document-${document.file_unique_id}`) ?? "document",
      ref: document.file_id,
      ...(document.mime_type ? { mimeType: document.mime_type } : {}),
      ...(document.file_size !== undefined ? { size: document.file_size } : {}),
    });
  }
  const photo = largest(message.photo);
  if (photo) {
    attachments.push({
      // Telegram re-encodes every photo it keeps as JPEG.
      name: safeName(`photo-${photo.file_unique_id}.jpg`) ?? "photo.jpg",
      mimeType: "image/jpeg",
      ref: photo.file_id,
      ...(photo.file_size !== undefined ? { size: photo.file_size } : {}),
    });
  }
  const { voice, audio } = message;
  if (voice) {
    attachments.push({
      name: safeName(`voice-${voice.file_unique_id}.ogg`) ?? "voice.ogg",
      mimeType: voice.mime_type ?? "audio/ogg",
      ref: voice.file_id,
      ...(voice.file_size !== undefined ? { size: voice.file_size } : {}),
      ...(voice.duration !== undefined ? { durationS: voice.duration } : {}),
    });
  }
  if (audio) {
    attachments.push({
      name: safeName(audio.file_name) ?? safeName(`audio-${audio.file_unique_id}`) ?? "audio",
      ref: audio.file_id,
      ...(audio.mime_type ? { mimeType: audio.mime_type } : {}),
      ...(audio.file_size !== undefined ? { size: audio.file_size } : {}),
      ...(audio.duration !== undefined ? { durationS: audio.duration } : {}),
    });
  }
  return attachments;
}
