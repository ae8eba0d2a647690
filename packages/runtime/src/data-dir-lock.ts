import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "./config-loader.ts";
import { writePrivateFile } from "./private-files.ts";
import { StartupError } from "./startup-error.ts";

// One router, host or standalone per DATA_DIR: two would write the same databases and answer the
// same chats twice. `DATA_DIR/phonework.lock` names the holder's pid; admin commands that only
// read or add a row (`router pair`) do not take it.
//
// How the file is made, and why this way:
// - Created by hard-linking a fully written temp file to the lock's name: link() fails with EEXIST
//   when the name exists, so exactly one process creates it, and nobody ever reads it half-written
//   (an open with `wx` followed by a write has that window).
// - Stale lock (its pid is gone: SIGKILL, a crash, a reboot): it is removed and creation retried.
//   Removal is the one dangerous step: two processes that both saw the same stale lock must not
//   both remove "it", or the second would remove the fresh lock the first just made. So a remover
//   first takes a claim file named after the stale lock's token (created the same exclusive way),
//   then checks the lock still carries that token before removing it. Tokens are never reused, so
//   only the claim's one holder can remove that file, and a fresh lock never matches. A claim left
//   by a process killed mid-takeover is itself stale and taken over the same way.
// - A lock naming our own pid is stale: in a container every start gets the same pid (often 1).
//   Any other pid that is alive (EPERM included: it belongs to another user) counts as the holder;
//   if that is an unrelated process that reused the pid, the error names it so the user can check.

export const DATA_DIR_LOCK_FILE = "phonework.lock";

/** What the lock file holds; validated when read back (a hand-edited file must not steer us). */
const LockRecord = z.object({
  pid: z.number().int().positive(),
  app: z.string().min(1),
  started_at: z.string(),
  /** Unique per lock made: tells "the same stale file" from "a fresh one with the same name". */
  token: z.string().regex(/^[0-9A-Za-z-]{1,64}$/),
});
type LockRecord = z.infer<typeof LockRecord>;

/**
 * Another live process holds DATA_DIR. A ConfigError, because the fix is in how this one is
 * configured (another DATA_DIR) or started: exitOnError prints the one line and exits 2.
 */
export class DataDirInUseError extends ConfigError {
  constructor(
    readonly dataDir: string,
    readonly holder: { pid: number; app: string },
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by ${holder.app} (pid ${holder.pid}); stop it, or give this one another DATA_DIR`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours; also done when the process exits. */
  release(): void;
}

export interface DataDirLockOptions {
  pid?: number;
  /** Whether a process is running; `process.kill(pid, 0)` by default. */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
  /** Registers a function to run at process exit and returns its removal. */
  onExit?: (release: () => void) => () => void;
}

/**
 * Takes `DATA_DIR/phonework.lock` for this process (`app` is the name others are told), or
 * throws DataDirInUseError naming the live process that holds it.
 */
export function lockDataDir(dataDir: string, app: string, options: DataDirLockOptions = {}): DataDirLock {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? processIsAlive;
  const record: LockRecord = {
    pid,
    app,
    started_at: new Date(options.now?.() ?? Date.now()).toISOString(),
    token: `${pid}-${randomBytes(8).toString("hex")}`,
  };
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  const holder = acquire(path, record, (other) => other.pid !== pid && isAlive(other.pid));
  if (holder) throw new DataDirInUseError(dataDir, holder);

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    unhook();
    try {
      removeIfOurs(path, record.token);
    } catch {
      // Often runs at exit, where a throw helps nobody: a lock left behind is stale (its pid is
      // gone) and the next start takes it over.
    }
  };
  const unhook = (options.onExit ?? releaseAtProcessExit)(release);
  return { path, release };
}

/** `process.kill(pid, 0)` delivers nothing; it only asks whether `pid` exists. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function releaseAtProcessExit(release: () => void): () => void {
  process.on("exit", release);
  return () => process.off("exit", release);
}

/** Creates `path` holding `record`; or returns the live holder (of the lock, or of its takeover). */
function acquire(
  path: string,
  record: LockRecord,
  holdsIt: (other: LockRecord) => boolean,
): LockRecord | undefined {
  for (;;) {
    if (createExclusive(path, record)) return undefined;
    const current = readRecord(path);
    if (current === "gone") continue; // released between our two steps: try again
    if (current !== "unreadable" && holdsIt(current)) return current;
    // Stale, or not a file we wrote: remove it under a claim on this very file (see the top).
    const staleToken = current === "unreadable" ? "unreadable" : current.token;
    const claim = `${path}.takeover-${staleToken}`;
    const claimHolder = acquire(claim, record, holdsIt);
    if (claimHolder) return claimHolder; // a live process is taking it over right now
    try {
      const now = readRecord(path);
      const unchanged =
        now === "unreadable" ? staleToken === "unreadable" : now !== "gone" && now.token === staleToken;
      if (unchanged) rmSync(path, { force: true });
    } finally {
      removeIfOurs(claim, record.token);
    }
  }
}

/** Makes `path` with `record` in it if no such name exists; false if one does. */
function createExclusive(path: string, record: LockRecord): boolean {
  const temp = `${path}.${record.token}.tmp`;
  try {
    writePrivateFile(temp, `${JSON.stringify(record)}\n`);
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw lockFileError(path, error);
  } finally {
    rmSync(temp, { force: true });
  }
}

function readRecord(path: string): LockRecord | "gone" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw lockFileError(path, error);
  }
  try {
    const parsed = LockRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : "unreadable";
  } catch {
    return "unreadable";
  }
}

function removeIfOurs(path: string, token: string): void {
  const current = readRecord(path);
  if (current !== "gone" && current !== "unreadable" && current.token === token)
    rmSync(path, { force: true });
}

function lockFileError(path: string, error: unknown): StartupError {
  const { code, message } = error as NodeJS.ErrnoException;
  return new StartupError(`lock file ${path} cannot be used (${code ?? message})`, { cause: error });
}
