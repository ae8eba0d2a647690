import { crc32, deflateSync } from "node:zlib";

// The console's app icons, drawn in code rather than kept as binary files: a rounded square in the
// theme colour with a white phone outline, encoded as an RGBA PNG (signature, IHDR, IDAT, IEND).

export const THEME_COLOR = "#1f6feb";
export const ICON_SIZES = [192, 512] as const;
export type IconSize = (typeof ICON_SIZES)[number];

const BACKGROUND = [0x1f, 0x6f, 0xeb, 0xff];
const FOREGROUND = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];

/** Which colour the pixel at (x, y) of a `size` icon is. */
function pixel(x: number, y: number, size: number): number[] {
  const unit = size / 32;
  const corner = 6 * unit;
  const dx = Math.max(corner - x, x - (size - 1 - corner), 0);
  const dy = Math.max(corner - y, y - (size - 1 - corner), 0);
  if (dx * dx + dy * dy > corner * corner) return CLEAR;
  // The phone: a 12×20 outline 1.5 units thick, centred, with a dot for the button.
  const left = 10 * unit;
  const right = 22 * unit;
  const top = 6 * unit;
  const bottom = 26 * unit;
  const line = 1.5 * unit;
  const inside = x >= left && x < right && y >= top && y < bottom;
  const inner = x >= left + line && x < right - line && y >= top + line && y < bottom - 3.5 * line;
  if (inside && !inner) return FOREGROUND;
  const cx = x - 16 * unit;
  const cy = y - (bottom - 2.5 * line);
  return cx * cx + cy * cy <= unit * unit ? FOREGROUND : BACKGROUND;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The icon of `size`×`size` pixels as PNG bytes. */
export function appIconPng(size: number): Buffer {
  const rows = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    const start = y * (size * 4 + 1); // each row starts with its filter byte (0: none)
    for (let x = 0; x < size; x++) rows.set(pixel(x, y, size), start + 1 + x * 4);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
