import { open } from "node:fs/promises";
import type { ReceivedImage } from "../contracts/received-image.ts";
import { formatSize } from "../files/list-tree.ts";

// A saved image made ready for a model: decoded with sharp (libvips) whatever its name or claimed
// type said, refused by its header's pixel count before any pixel is decoded (a 50,000² PNG of a
// few KB would take 10 GB), scaled to fit `maxSide` on its long side and encoded again (PNG for
// screenshots, where text must stay sharp; JPEG for photos or when the PNG is too big), smaller
// in steps until it fits `maxBytes`. Only raster formats a phone sends are taken: SVG (which
// librsvg would render, fetching nothing but running a whole parser) and PDF are refused.
// sharp is an optional dependency (a native addon): where it failed to install, images go by path.

export interface ImageBounds {
  /** The long side after scaling, in pixels. */
  maxSide: number;
  /** The encoded copy's largest size. */
  maxBytes: number;
  /** Pixels (width × height) the header may claim; more is refused before decoding. */
  maxPixels: number;
}

/** 1,568 px: what Anthropic's and OpenAI's vision models scale to anyway, so nothing is lost. */
export const DEFAULT_MAX_SIDE = 1568;
/** 100 megapixels: a 108 MP phone camera's photo; nothing a chat platform delivers is larger. */
export const DEFAULT_MAX_PIXELS = 100_000_000;
/** Largest file read from disk to decode (the inbox already bounds a message's files). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const FORMATS = new Set(["jpeg", "png", "webp", "gif", "heif", "avif", "tiff"]);

export type PreparedImage = { ok: true; image: ReceivedImage } | { ok: false; reason: string };

type Sharp = typeof import("sharp").default;
let sharpModule: Promise<Sharp | undefined> | undefined;

/** sharp, loaded at the first image; undefined where its native part is not installed. */
export function loadSharp(): Promise<Sharp | undefined> {
  sharpModule ??= import("sharp").then(
    (module) => module.default,
    () => undefined,
  );
  return sharpModule;
}

/** Reads, checks, scales and encodes one image; never throws. */
export async function prepareImage(path: string, bounds: ImageBounds): Promise<PreparedImage> {
  const sharp = await loadSharp();
  if (!sharp) return { ok: false, reason: "image support (the sharp package) is not installed on this host" };
  let data: Buffer;
  try {
    data = await readBounded(path);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  try {
    const options = { limitInputPixels: bounds.maxPixels, failOn: "error" as const, animated: false };
    const meta = await sharp(data, options).metadata();
    if (!meta.format || !FORMATS.has(meta.format))
      return { ok: false, reason: `it is not a photo or picture (${meta.format ?? "unknown format"})` };
    const pixels = (meta.width ?? 0) * (meta.height ?? 0);
    if (pixels > bounds.maxPixels)
      return { ok: false, reason: `${meta.width}×${meta.height} is too many pixels to read` };
    return { ok: true, image: await encode(sharp, data, path, meta.format, bounds, options) };
  } catch (error) {
    return { ok: false, reason: describeSharpError(error, bounds) };
  }
}

async function readBounded(path: string): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    if (size > MAX_FILE_BYTES) throw new Error("the file is too large to read as an image");
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/** Scaled and encoded again, smaller in steps until it fits; throws when even the smallest does not. */
async function encode(
  sharp: Sharp,
  data: Buffer,
  path: string,
  format: string,
  bounds: ImageBounds,
  options: { limitInputPixels: number; failOn: "error"; animated: boolean },
): Promise<ReceivedImage> {
  let side = bounds.maxSide;
  for (let attempt = 0; attempt < 6; attempt++) {
    const resized = () =>
      sharp(data, options)
        .rotate() // the photo's EXIF orientation, applied: the model sees it upright
        .resize({ width: side, height: side, fit: "inside", withoutEnlargement: true });
    const asPng = format === "png" || format === "gif";
    const candidates: Array<{ mimeType: "image/png" | "image/jpeg"; run: () => Promise<Encoded> }> = [
      ...(asPng
        ? [
            {
              mimeType: "image/png" as const,
              run: () => resized().png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true }),
            },
          ]
        : []),
      {
        mimeType: "image/jpeg",
        run: () =>
          resized()
            .flatten({ background: "#ffffff" })
            .jpeg({ quality: 85 })
            .toBuffer({ resolveWithObject: true }),
      },
    ];
    for (const { mimeType, run } of candidates) {
      const out = await run();
      if (out.data.length <= bounds.maxBytes)
        return {
          path,
          mimeType,
          base64: out.data.toString("base64"),
          width: out.info.width,
          height: out.info.height,
        };
    }
    side = Math.floor(side * 0.7);
  }
  throw new TooLarge();
}

interface Encoded {
  data: Buffer;
  info: { width: number; height: number };
}

class TooLarge extends Error {}

function describeSharpError(error: unknown, bounds: ImageBounds): string {
  if (error instanceof TooLarge) return `it is still over ${formatSize(bounds.maxBytes)} after scaling`;
  const message = (error as Error)?.message ?? String(error);
  if (/pixel limit/i.test(message)) return "it has too many pixels to read";
  if (/unsupported image format/i.test(message)) return "it is not an image this host can read";
  return "it could not be decoded as an image";
}
