import { readFileSync } from "node:fs";

// Append-only JSON Lines files (a channel's log.jsonl and context.jsonl), read back. They are
// written by jsonl-appender.ts, one write per batch of lines, so a batch lands whole or, after a
// crash, as a torn last line: reading skips a line that does not parse, and the next append starts
// on a fresh line rather than glued to it.

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
