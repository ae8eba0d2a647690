import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./private-files.ts";

/** A problem with the machine the program starts on (not a bug): printed as one clear line. */
export class StartupError extends Error {
  override readonly name: string = "StartupError";
}

/**
 * Fails fast, naming the directory and the reason, when DATA_DIR cannot take writes (read-only
 * mount, full disk, wrong owner) — before anything is half-written there. DATA_DIR is made
 * owner-only (0700) on the way, also when an older version created it 0755.
 */
export function ensureWritableDir(dir: string): void {
  const probe = join(dir, `.write-probe-${process.pid}`);
  try {
    ensurePrivateDir(dir);
    writeFileSync(probe, "x".repeat(4096), { flush: true, mode: PRIVATE_FILE_MODE });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new StartupError(
      `DATA_DIR ${dir} is not usable (${code ?? message}); fix it or point DATA_DIR elsewhere`,
      { cause: error },
    );
  } finally {
    rmSync(probe, { force: true });
  }
}
