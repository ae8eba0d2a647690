import type { Boundary } from "./boundary.ts";
import { lstatEntry, readEntries } from "./dir-entries.ts";
import { type Opened, openChild, using } from "./open-inside.ts";

// file_ops list: a directory tree, a few levels deep, with sizes. Bounded so a huge
// directory cannot flood the model's context. Symlinks are shown, never followed, and each
// subdirectory is opened under its parent's checked descriptor (open-inside.ts).

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

/** A short reason for a line such as "[cannot read: EACCES]". */
function reason(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

export function listTree(boundary: Boundary, root: Opened, depth: number): string {
  const lines = [`${root.shown}/`];
  let count = 0;
  let truncated = false;
  const walk = (dir: Opened, level: number, indent: string) => {
    let entries: ReturnType<typeof readEntries>;
    try {
      entries = readEntries(boundary, dir);
    } catch (error) {
      lines.push(`${indent}[cannot read: ${reason(error)}]`);
      return;
    }
    for (const entry of entries) {
      if (count >= MAX_ENTRIES) {
        truncated = true;
        return;
      }
      count++;
      if (entry.isSymbolicLink()) lines.push(`${indent}${entry.name}@`);
      else if (entry.isDirectory()) {
        const opaque = OPAQUE.has(entry.name);
        lines.push(`${indent}${entry.name}/${opaque ? " (not expanded)" : ""}`);
        if (opaque || level >= depth) continue;
        try {
          using(openChild(boundary, dir, entry.name), (child) => {
            if (child.stat.isDirectory()) walk(child, level + 1, `${indent}  `);
          });
        } catch (error) {
          lines.push(`${indent}  [cannot read: ${reason(error)}]`);
        }
      } else {
        let size = "?";
        try {
          size = formatSize(lstatEntry(boundary, dir, entry.name).size);
        } catch {}
        lines.push(`${indent}${entry.name}  ${size}`);
      }
    }
  };
  walk(root, 1, "  ");
  if (truncated) lines.push(`…[stopped after ${MAX_ENTRIES} entries; list a subdirectory for more]`);
  return lines.join("\n");
}
