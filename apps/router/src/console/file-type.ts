// The type the console gives a host's file. The page lives on the router's origin, so a file never
// keeps the type its host claims: HTML or SVG opened from a same-origin blob would run as the
// router's own page (with the user's cookie). Only raster images, known by their first bytes, are
// shown inline; everything else is opaque bytes, which browsers save instead of rendering.
// Shared by the router (the type it sends pages) and the page (the type it gives its blobs).

/** Bytes a browser downloads and never renders. */
export const DOWNLOAD_TYPE = "application/octet-stream";

export type RasterImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));

const hasAt = (bytes: Uint8Array, at: number, signature: readonly number[]): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii("GIF87a");
const GIF89 = ascii("GIF89a");
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

/** The raster image `bytes` are by their magic number, whatever the file is called or claims to be. */
export function rasterImageType(bytes: Uint8Array): RasterImageType | undefined {
  if (hasAt(bytes, 0, PNG)) return "image/png";
  if (hasAt(bytes, 0, JPEG)) return "image/jpeg";
  if (hasAt(bytes, 0, GIF87) || hasAt(bytes, 0, GIF89)) return "image/gif";
  if (hasAt(bytes, 0, RIFF) && hasAt(bytes, 8, WEBP)) return "image/webp";
  return undefined;
}

/** The one type a page is told a file has: its raster image type, else opaque bytes. */
export const consoleFileType = (bytes: Uint8Array): RasterImageType | typeof DOWNLOAD_TYPE =>
  rasterImageType(bytes) ?? DOWNLOAD_TYPE;
