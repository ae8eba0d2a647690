import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

// file_ops list: a directory tree, a few levels deep, with sizes. Bounded so a huge
// directory cannot flood the model's context.

const MAX_ENTRIES = 300;
const OPAQUE = new Set([".git", "node_modules", "__pycache__", ".venv", "venv", "dist", "build", ".next"]);

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function listTree(root: string, shown: string, depth: number): string {
  const lines = [`${shown}/`];
  let count = 0;
  let truncated = false;
  const walk = (dir: string, level: number, indent: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch (error) {
      lines.push(`${indent}[cannot read: ${(error as NodeJS.ErrnoException).code}]`);
      return;
    }
    for (const entry of entries) {
      if (count >= MAX_ENTRIES) {
        truncated = true;
        return;
      }
      count++;
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) lines.push(`${indent}${entry.name}@`);
      else if (entry.isDirectory()) {
        const opaque = OPAQUE.has(entry.name);
        lines.push(`${indent}${entry.name}/${opaque ? " (not expanded)" : ""}`);
        if (!opaque && level < depth) walk(path, level + 1, `${indent}  `);
      } else {
        let size = "?";
        try {
          size = formatSize(statSync(path).size);
        } catch {}
        lines.push(`${indent}${entry.name}  ${size}`);
      }
    }
  };
  walk(root, 1, "  ");
  if (truncated) lines.push(`…[stopped after ${MAX_ENTRIES} entries; list a subdirectory for more]`);
  return lines.join("\n");
}
