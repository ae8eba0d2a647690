import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./shared/wait-for.ts";

export interface TempDir {
  path: string;
  /** Removes it now (retrying briefly). */
  remove(): void;
  /**
   * Removes it once nothing writes into it any more: a child process that was just stopped (a
   * coding CLI's helpers) can still be flushing files for a moment, which fails a removal with
   * ENOTEMPTY.
   */
  removeWhenQuiet(timeoutMs?: number): Promise<void>;
}

/** A fresh directory under the OS temp dir, and the ways to remove it. */
export function makeTempDir(prefix = "phonework-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  return {
    path,
    remove,
    removeWhenQuiet: (timeoutMs = 10_000) =>
      waitFor(
        () => {
          try {
            remove();
            return true;
          } catch {
            return false;
          }
        },
        { timeoutMs, message: `${path} to be removable` },
      ).then(() => undefined),
  };
}
