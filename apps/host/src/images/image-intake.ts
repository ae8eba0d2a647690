import { extname } from "node:path";
import type { ReceivedFile } from "../contracts/message-handler.ts";
import type { TurnImages } from "../contracts/received-image.ts";
import { type ImageBounds, prepareImage } from "./prepare-image.ts";

// Which of a message's files are images, made ready (prepare-image.ts), and what the turn says
// when the user sent a picture without a word.

/**
 * The prompt for a picture with no caption. A user who sends only a screenshot rarely wants it
 * described: they want the error on it explained, the text in it read, the thing in it named.
 */
export const IMAGE_ONLY_PROMPT =
  "(The user sent this image without a word.) Answer what they most likely want from it: " +
  "if it shows an error, a warning or a failing program, say what it means and how to fix it; " +
  "if it is mostly text (a document, a sign, a message, a receipt), give the text and what matters in it; " +
  "otherwise say briefly what it shows and anything worth acting on. Do not ask what they want first.";

const IMAGE_EXTENSIONS = new Set([
  ".jpg",
  ".jpeg",
  ".png",
  ".webp",
  ".gif",
  ".heic",
  ".heif",
  ".avif",
  ".tif",
  ".tiff",
]);

/** A file the sender called an image, by type or by name; its bytes decide later. */
export function looksLikeImage(file: ReceivedFile): boolean {
  return (
    file.mimeType?.toLowerCase().startsWith("image/") === true ||
    IMAGE_EXTENSIONS.has(extname(file.name).toLowerCase())
  );
}

/** The message's images, scaled; each one that cannot be used gets a sentence for the user. */
export async function prepareImages(
  files: readonly ReceivedFile[],
  bounds: ImageBounds,
): Promise<TurnImages> {
  const result: TurnImages = { images: [], refused: [] };
  for (const file of files.filter(looksLikeImage)) {
    const prepared = await prepareImage(file.path, bounds);
    if (prepared.ok) result.images.push(prepared.image);
    else result.refused.push(`⚠️ I could not look at ${file.name}: ${prepared.reason}.`);
  }
  return result;
}

/** The text of a turn with images: the user's words, or the image-only prompt, then the file lines. */
export function imageTurnText(caption: string, text: string, hasImages: boolean): string {
  if (!hasImages || caption.trim()) return text;
  return [IMAGE_ONLY_PROMPT, text].filter(Boolean).join("\n");
}

/** An image as the data URL an OpenAI-compatible model takes. */
export const dataUrl = (image: { mimeType: string; base64: string }) =>
  `data:${image.mimeType};base64,${image.base64}`;
