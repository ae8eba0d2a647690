import { extname } from "node:path";

// A file name that came with a chat message, reduced to one safe name inside the inbox: the
// sender chose it, so it may hold a path (`../../etc/passwd`), a hidden or special name (`.bashrc`,
// `..`), control characters that break a prompt line, or more bytes than a file name may have.

/** Room for a `-N` suffix and any file system's 255-byte name limit. */
const MAX_NAME_BYTES = 120;
/** An extension longer than this is part of the name, not something to keep when cutting. */
const MAX_EXTENSION_BYTES = 16;
export const FALLBACK_NAME = "attachment";

/** Cuts `text` to at most `max` UTF-8 bytes without splitting a character. */
function cutToBytes(text: string, max: number): string {
  let bytes = 0;
  let out = "";
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > max) break;
    out += char;
  }
  return out;
}

/**
 * The last path segment (either separator: a Windows client's path too), without control and
 * invisible format characters (NUL, newlines, bidi overrides), without leading dots (no hidden
 * files, and so never `.` or `..`), cut to a length that keeps the extension.
 */
export function safeBaseName(name: string): string {
  const base = name.split(/[/\\]/).at(-1) ?? "";
  const cleaned = base
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .trim()
    .replace(/^[.\s]+/, "");
  if (Buffer.byteLength(cleaned) <= MAX_NAME_BYTES) return cleaned || FALLBACK_NAME;
  const extension = extname(cleaned);
  const kept = Buffer.byteLength(extension) <= MAX_EXTENSION_BYTES ? extension : "";
  const stem = cleaned.slice(0, cleaned.length - kept.length);
  return `${cutToBytes(stem, MAX_NAME_BYTES - Buffer.byteLength(kept)).trimEnd()}${kept}`;
}

/** The `n`th name to try for a file that must not replace another: `report.pdf`, `report-1.pdf`, … */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const extension = extname(name);
  return `${name.slice(0, name.length - extension.length)}-${n}${extension}`;
}
