import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cleanup } from "./cleanup.ts";

/** A fresh directory under the OS temp dir, removed when the bench cleans up. */
export function tempDir(cleanup: Cleanup, prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), `phonework-bench-${prefix}-`));
  cleanup.add(() => rmSync(path, { recursive: true, force: true }));
  return path;
}
