import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode } from "@phonework/runtime";

// Append-only JSON Lines files (a channel's log.jsonl and context.jsonl). One appendFileSync per
// batch of lines, so a batch lands whole or, after a crash, as a torn last line: reading skips a
// line that does not parse, and the next append starts on a fresh line rather than glued to it.

/** Appends one JSON value per line; the file and its directory are private to the owner. */
export function appendJsonLines(path: string, values: readonly unknown[]): void {
  if (values.length === 0) return;
  ensurePrivateDir(dirname(path));
  const text = values.map((value) => `${JSON.stringify(value)}\n`).join("");
  appendFileSync(path, endsTorn(path) ? `\n${text}` : text, { mode: PRIVATE_FILE_MODE });
  restrictMode(path, PRIVATE_FILE_MODE);
}

/** Each line parsed; lines that are not JSON (a torn write) are counted, not thrown. */
export function readJsonLines(path: string): { values: unknown[]; unreadable: number } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { values: [], unreadable: 0 };
    throw error;
  }
  const values: unknown[] = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      unreadable++;
    }
  }
  return { values, unreadable };
}

/** Whether the file exists and its last byte is not a newline (a write cut short). */
function endsTorn(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
