import type { AttachmentRef } from "../platform-adapter.ts";

// The files a received message carries, as references downloaded later through the message
// resource API (GET /open-apis/im/v1/messages/:message_id/resources/:file_key?type=image|file):
// an image, a file, an audio clip (Feishu keeps voice as opus), a video ("media"), and the images
// and videos inside rich text (post). Feishu gives no size in the event; the download is capped.
// The ref carries all three parts the download needs, so a message stored before a restart can
// still be fetched after it.

export type ResourceType = "image" | "file";

/** Feishu's keys and message ids: letters, digits, "_" and "-". */
const ID = /^[\w-]{1,200}$/;

export function resourceRef(type: ResourceType, messageId: string, key: string): string {
  return `${type}:${messageId}:${key}`;
}

/** The parts of a ref this adapter made, or undefined for anything else (never sent to Feishu). */
export function parseResourceRef(
  ref: string,
): { type: ResourceType; messageId: string; key: string } | undefined {
  const [type, messageId, key, ...rest] = ref.split(":");
  if (rest.length > 0 || (type !== "image" && type !== "file")) return undefined;
  if (!messageId || !key || !ID.test(messageId) || !ID.test(key)) return undefined;
  return { type, messageId, key };
}

/**
 * A name the sender chose, made safe to save: its last path segment, without control characters
 * or leading dots (no hidden files, no "..") and at most 120 characters; undefined when nothing is
 * left.
 */
export function safeName(name: unknown): string | undefined {
  if (typeof name !== "string") return undefined;
  const base = (name.split(/[/\\]/).pop() ?? "")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .trim()
    .replace(/^\.+/, "")
    .trim();
  if (!base) return undefined;
  if (base.length <= 120) return base;
  const dot = base.lastIndexOf(".");
  const extension = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : "";
  return base.slice(0, 120 - extension.length) + extension;
}

/** A default name by type, told apart by the end of the key ("img_v3_…_ab12cd34g" → "image-ab12cd34.jpg"). */
const defaultName = (prefix: string, key: string, extension: string) =>
  `${prefix}-${key.replace(/[^A-Za-z0-9]/g, "").slice(-8) || "1"}${extension}`;

type Content = Record<string, unknown>;
const keyOf = (value: unknown) => (typeof value === "string" && ID.test(value) ? value : undefined);

function image(messageId: string, key: string): AttachmentRef {
  // Feishu does not say the format; most phone pictures are JPEG, and readers sniff the bytes.
  return { name: defaultName("image", key, ".jpg"), ref: resourceRef("image", messageId, key) };
}

function video(messageId: string, key: string, name: unknown): AttachmentRef {
  return {
    name: safeName(name) ?? defaultName("video", key, ".mp4"),
    mimeType: "video/mp4",
    ref: resourceRef("file", messageId, key),
  };
}

/** Images and videos inside a rich-text message, in order. */
function postAttachments(messageId: string, content: Content): AttachmentRef[] {
  const body = (Array.isArray(content.content) ? content : Object.values(content)[0]) as
    | { content?: unknown }
    | undefined;
  const paragraphs = Array.isArray(body?.content) ? body.content : [];
  const found: AttachmentRef[] = [];
  for (const paragraph of paragraphs) {
    if (!Array.isArray(paragraph)) continue;
    for (const node of paragraph as Array<{ tag?: unknown; image_key?: unknown; file_key?: unknown }>) {
      const imageKey = keyOf(node?.image_key);
      const fileKey = keyOf(node?.file_key);
      if (node?.tag === "img" && imageKey) found.push(image(messageId, imageKey));
      if (node?.tag === "media" && fileKey) found.push(video(messageId, fileKey, undefined));
    }
  }
  return found;
}

/** A declared duration in ms, as seconds; the sender's number, so only a finite non-negative one. */
function durationOf(ms: unknown): { durationS?: number } {
  return typeof ms === "number" && Number.isFinite(ms) && ms >= 0 ? { durationS: ms / 1000 } : {};
}

/** The attachments of a message of `messageType` with this (parsed) content; [] when it has none. */
export function attachmentsOf(messageType: string, messageId: string, content: Content): AttachmentRef[] {
  const fileKey = keyOf(content.file_key);
  const imageKey = keyOf(content.image_key);
  switch (messageType) {
    case "image":
      return imageKey ? [image(messageId, imageKey)] : [];
    case "file":
      return fileKey
        ? [
            {
              name: safeName(content.file_name) ?? defaultName("file", fileKey, ""),
              ref: resourceRef("file", messageId, fileKey),
            },
          ]
        : [];
    case "audio":
      // Voice messages are opus in an ogg container, heard on the router (voice/); `duration` is ms.
      return fileKey
        ? [
            {
              name: defaultName("audio", fileKey, ".opus"),
              mimeType: "audio/ogg",
              ref: resourceRef("file", messageId, fileKey),
              ...durationOf(content.duration),
            },
          ]
        : [];
    case "media":
      return fileKey ? [video(messageId, fileKey, content.file_name)] : [];
    case "post":
      return postAttachments(messageId, content);
    default:
      return [];
  }
}
