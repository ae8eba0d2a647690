import { readSync } from "node:fs";

// Reading from an open descriptor: the file tools never reopen a path they have checked.

/** Up to `length` bytes from `start`; fewer only at the end of the file. */
export function readRange(fd: number, start: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}
