import { readRange } from "../os/read-fd.ts";
import type { Boundary } from "./boundary.ts";
import { readEntries } from "./dir-entries.ts";
import { type Opened, openChild, using } from "./open-inside.ts";

// file_ops search: grep-like, case-insensitive literal search, bounded in files read,
// file size and matches so it answers quickly even on a large tree. Walks without following
// symlinks, opens each entry under its parent's checked descriptor, reads only through it, and
// skips files with more than one hard link (open-inside.ts says why).

const MAX_MATCHES = 100;
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const BINARY_PROBE_BYTES = 4096;
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", "venv"]);

export function searchFiles(boundary: Boundary, start: Opened, query: string): string {
  const needle = query.toLowerCase();
  const matches: string[] = [];
  let filesRead = 0;
  let stoppedEarly = false;

  const searchFile = ({ fd, stat, shown }: Opened) => {
    if (!stat.isFile() || stat.nlink > 1 || stat.size > MAX_FILE_BYTES) return;
    // A binary file is told by its first bytes; only a text file is read whole.
    if (readRange(fd, 0, Math.min(stat.size, BINARY_PROBE_BYTES)).includes(0)) return;
    const content = readRange(fd, 0, stat.size);
    filesRead++;
    const lines = content.toString("utf8").split("\n");
    for (let i = 0; i < lines.length && matches.length < MAX_MATCHES; i++) {
      const line = lines[i] ?? "";
      if (line.toLowerCase().includes(needle))
        matches.push(`${shown}:${i + 1}: ${line.trim().slice(0, 200)}`);
    }
  };

  const visit = (opened: Opened) => {
    if (matches.length >= MAX_MATCHES || filesRead >= MAX_FILES) {
      stoppedEarly = true;
      return;
    }
    if (!opened.stat.isDirectory()) return searchFile(opened);
    let entries: ReturnType<typeof readEntries> = [];
    try {
      entries = readEntries(boundary, opened);
    } catch {}
    for (const entry of entries) {
      if (entry.isDirectory() ? SKIP_DIRS.has(entry.name) : !entry.isFile()) continue;
      try {
        using(openChild(boundary, opened, entry.name), visit);
      } catch {
        // Gone, unreadable, or changed into something outside since it was listed: not searched.
      }
    }
  };
  visit(start);

  if (matches.length === 0) return `no matches for "${query}" (${filesRead} files searched)`;
  const note = stoppedEarly ? `\n…[stopped at ${matches.length} matches / ${filesRead} files]` : "";
  return `${matches.length} match(es) for "${query}":\n${matches.join("\n")}${note}`;
}
