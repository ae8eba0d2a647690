import { closeSync, type Dirent, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join, relative } from "node:path";

// file_ops search: grep-like, case-insensitive literal search, bounded in files read,
// file size and matches so it answers quickly even on a large tree.

const MAX_MATCHES = 100;
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", "venv"]);

function looksBinary(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).includes(0);
  } finally {
    closeSync(fd);
  }
}

export function searchFiles(root: string, start: string, query: string): string {
  const needle = query.toLowerCase();
  const matches: string[] = [];
  let filesRead = 0;
  let stoppedEarly = false;

  const visit = (path: string) => {
    if (matches.length >= MAX_MATCHES || filesRead >= MAX_FILES) {
      stoppedEarly = true;
      return;
    }
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(path, { withFileTypes: true });
      } catch {}
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.isSymbolicLink() || (entry.isDirectory() && SKIP_DIRS.has(entry.name))) continue;
        visit(join(path, entry.name));
      }
      return;
    }
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES || looksBinary(path)) return;
    filesRead++;
    const lines = readFileSync(path, "utf8").split("\n");
    for (let i = 0; i < lines.length && matches.length < MAX_MATCHES; i++) {
      const line = lines[i] ?? "";
      if (line.toLowerCase().includes(needle)) {
        matches.push(`${relative(root, path) || "."}:${i + 1}: ${line.trim().slice(0, 200)}`);
      }
    }
  };
  visit(start);

  if (matches.length === 0) return `no matches for "${query}" (${filesRead} files searched)`;
  const note = stoppedEarly ? `\n…[stopped at ${matches.length} matches / ${filesRead} files]` : "";
  return `${matches.length} match(es) for "${query}":\n${matches.join("\n")}${note}`;
}
