import { chmodSync, closeSync, mkdirSync, openSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

// DATA_DIR holds command output, conversation history and keys: everything we create there is
// readable by its owner only (directories 0700, files 0600), whatever the umask. The mode given
// at creation is only an upper bound (the umask can remove bits), and files and directories made
// by older versions are 0644/0755, so each helper also chmods what it creates or is handed.
// The process umask itself is left alone: the user's shell commands inherit it.

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Sets `mode` on an existing path we own; a missing path is skipped. A path owned by someone else
 * (a shared directory we were pointed at) is left as it is: it is not ours to change, and chmod
 * would fail there anyway.
 */
export function restrictMode(path: string, mode: number): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return;
  // A sticky, world-writable directory is a shared one like /tmp, even when root owns it and
  // runs us: tightening it would break every other user of the machine.
  if (stat.isDirectory() && (stat.mode & 0o1002) === 0o1002) return;
  if ((stat.mode & 0o777) !== mode) chmodSync(path, mode);
}

/**
 * `mkdir -p` where every directory it creates is 0700; `path` itself is made 0700 too when it
 * already existed (a directory from an older version). Existing parents are left alone.
 */
export function ensurePrivateDir(path: string): void {
  const target = resolve(path);
  const firstCreated = mkdirSync(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (firstCreated !== undefined) {
    // mkdir returns the topmost directory it created; walk from there down to `target`.
    let dir = firstCreated;
    chmodSync(dir, PRIVATE_DIR_MODE);
    for (const part of relative(firstCreated, target).split(sep).filter(Boolean)) {
      dir = join(dir, part);
      chmodSync(dir, PRIVATE_DIR_MODE);
    }
  }
  restrictMode(target, PRIVATE_DIR_MODE);
}

/** Writes a file readable by its owner only; its directory is made private first. */
export function writePrivateFile(path: string, data: string | NodeJS.ArrayBufferView): void {
  ensurePrivateDir(dirname(path));
  writeFileSync(path, data, { mode: PRIVATE_FILE_MODE });
  // The mode above only applies when the file is created: an existing file keeps its own.
  restrictMode(path, PRIVATE_FILE_MODE);
}

/** Creates an empty private file if there is none (without touching one that exists) and makes it 0600. */
export function touchPrivateFile(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  restrictMode(path, PRIVATE_FILE_MODE);
}
