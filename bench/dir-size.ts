import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

// A directory tree's size counted as `du` does: `apparent` is the bytes in its files (and its
// directories' entries, and the link text of symbolic links), `onDisk` the blocks allocated to
// them. Each hard-linked file is counted once; symbolic links are not followed.

export interface DirSize {
  apparent: number;
  onDisk: number;
}

export function dirSize(root: string): DirSize {
  const seen = new Set<string>();
  const total: DirSize = { apparent: 0, onDisk: 0 };
  const visit = (path: string) => {
    const stat = lstatSync(path, { bigint: true });
    const id = `${stat.dev}:${stat.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    total.apparent += Number(stat.size);
    total.onDisk += Number(stat.blocks) * 512;
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return total;
}
