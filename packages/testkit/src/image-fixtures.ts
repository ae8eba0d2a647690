import { readFileSync } from "node:fs";

// The image fixtures (fixtures/images/) and what a test reads back from an image a model was sent:
// its type and size from the header alone, so tests in packages without an image library can check
// that an image arrived scaled.

export type ImageFixture = "screenshot.png" | "large-photo.jpg";

export function imageFixture(name: ImageFixture): Buffer {
  return readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
}

export interface ImageHeader {
  format: "png" | "jpeg";
  width: number;
  height: number;
}

/** The format and size of a PNG or JPEG from its header; undefined for anything else. */
export function imageHeader(data: Buffer): ImageHeader | undefined {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { format: "png", width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  // JPEG: walk the segments to the first start-of-frame (SOF0–SOF15 but DHT, JPG and DAC).
  let at = 2;
  while (at + 9 < data.length) {
    if (data[at] !== 0xff) return undefined;
    const marker = data[at + 1] ?? 0;
    const length = data.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { format: "jpeg", height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/** A data URL's type and bytes; throws on anything that is not `data:<type>;base64,…`. */
export function decodeDataUrl(url: string): { mimeType: string; data: Buffer } {
  const match = /^data:([\w/+.-]+);base64,([A-Za-z0-9+/=]+)$/.exec(url);
  if (!match) throw new Error(`not a base64 data URL: ${url.slice(0, 60)}`);
  return { mimeType: match[1] as string, data: Buffer.from(match[2] as string, "base64") };
}
