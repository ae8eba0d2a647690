import { copyFileSync, existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Cleanup } from "./cleanup.ts";
import { runCommand } from "./run-command.ts";
import { tempDir } from "./temp-dir.ts";

// The published package as a user gets it: `pnpm package`, then `npm install -g` of the tarball
// into a prefix of its own (the native addons load the prebuilt binaries their packages carry).

const repoRoot = join(import.meta.dirname, "..");
const PACK_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 300_000;

export interface InstalledPackage {
  /** `<prefix>/bin/phonework`. */
  bin: string;
  /** `<prefix>/lib/node_modules/phonework`: the bundle and its runtime dependencies. */
  packageDir: string;
  tarball: string;
  installMs: number;
}

export async function installPackage(cleanup: Cleanup): Promise<InstalledPackage> {
  const dir = tempDir(cleanup, "install");
  // scripts/package.ts is what `pnpm package` runs; its last line is the tarball's path.
  const packed = await runCommand(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "scripts", "package.ts"), dir],
    { cwd: repoRoot, timeoutMs: PACK_TIMEOUT_MS },
    cleanup,
  );
  const built = packed.stdout.trim().split("\n").at(-1) ?? "";
  if (!existsSync(built)) throw new Error(`pnpm package printed no tarball (${packed.stdout.trim()})`);
  // Packed into `dir`, or copied there: a `pnpm package` run elsewhere cannot change what is installed.
  const tarball = join(dir, basename(built));
  if (resolve(built) !== tarball) copyFileSync(built, tarball);
  const prefix = join(dir, "prefix");
  const installed = await runCommand(
    "npm",
    ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", tarball],
    { cwd: dir, timeoutMs: INSTALL_TIMEOUT_MS },
    cleanup,
  );
  const bin = join(prefix, "bin", "phonework");
  if (!existsSync(bin)) throw new Error(`npm install left no ${bin}`);
  return {
    bin,
    packageDir: join(prefix, "lib", "node_modules", "phonework"),
    tarball,
    installMs: installed.ms,
  };
}
