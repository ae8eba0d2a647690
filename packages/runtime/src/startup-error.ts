import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A problem with the machine the program starts on (not a bug): printed as one clear line. */
export class StartupError extends Error {
  override readonly name: string = "StartupError";
}

/**
 * Fails fast, naming the directory and the reason, when DATA_DIR cannot take writes (read-only
 * mount, full disk, wrong owner) — before anything is half-written there.
 */
export function ensureWritableDir(dir: string): void {
  const probe = join(dir, `.write-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, "x".repeat(4096), { flush: true });
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
