import { makeTempDir } from "../packages/testkit/src/temp-dir.ts";
import type { Cleanup } from "./cleanup.ts";

/** A fresh directory under the OS temp dir, removed when the bench cleans up. */
export function tempDir(cleanup: Cleanup, prefix: string): string {
  const dir = makeTempDir(`phonework-bench-${prefix}-`);
  cleanup.add(dir.remove);
  return dir.path;
}
