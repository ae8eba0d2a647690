// Terminal output read from the PTY and not yet handed on, counted in UTF-8 bytes (what the
// consumer's acknowledgements count). Taken in pieces of at most so many bytes, never cutting a
// character in half.

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

export class OutputQueue {
  private chunks: string[] = [];
  private size = 0;

  get bytes(): number {
    return this.size;
  }

  push(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.size += utf8Bytes(text);
  }

  /** Up to `maxBytes` of the oldest output (several chunks joined); "" when empty or no whole character fits. */
  take(maxBytes: number): string {
    let out = "";
    let room = maxBytes;
    while (this.chunks.length > 0 && room > 0) {
      const chunk = this.chunks[0] ?? "";
      const head = utf8Prefix(chunk, room);
      if (!head) break;
      const bytes = utf8Bytes(head);
      out += head;
      room -= bytes;
      this.size -= bytes;
      if (head.length === chunk.length) this.chunks.shift();
      else {
        this.chunks[0] = chunk.slice(head.length);
        break;
      }
    }
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}

/** The longest start of `text` that fits in `maxBytes` of UTF-8 and ends on a whole character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= maxBytes) return text;
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) to the start of the character that did not fit.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  // Decoding a whole-character prefix gives back exactly that many UTF-16 units of `text` (a lone
  // surrogate encodes to 3 bytes and decodes to one U+FFFD unit), so the length is the place to cut.
  return text.slice(0, encoded.subarray(0, end).toString("utf8").length);
}
