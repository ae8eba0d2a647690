import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A fresh directory under the OS temp dir, and a function that removes it. Removal retries: a
 * child process that was just killed (a coding CLI) can still be writing into it, which makes a
 * single pass fail with ENOTEMPTY.
 */
export function makeTempDir(prefix = "phonework-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    remove: () => rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}
