import { readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode } from "./private-files.ts";
import { openRotatingFile, parseLogSize, type RotatingFile } from "./rotating-file.ts";
import { StartupError } from "./startup-error.ts";

// The log of a program whose terminal is the chat, in DATA_DIR/logs: numbered files
// (<name>.1.log, <name>.2.log, …), the next one started at a size and the oldest deleted (see
// rotating-file.ts); <name>.log is a symbolic link to the one being written, so one name always
// shows the newest lines and `tail -F` follows rotations.

export interface LogRotation {
  /** A file this big is closed and the next one started: `10m`, `512k`. */
  size: string;
  /** Files kept, the one being written included; older ones are deleted at each rotation. */
  files: number;
}

export const DEFAULT_LOG_ROTATION: LogRotation = { size: "10m", files: 5 };

export interface LogFile {
  /** The name to give people: `<dir>/<name>.log` (where symbolic links cannot be made, the file itself). */
  path: string;
  stream: RotatingFile;
}

/**
 * Opens `<dir>/<name>.log` for appending (0600, in a 0700 `dir`). Writes are synchronous, so the
 * last lines before process.exit are in the file. `onError` hears of writes that fail later (a
 * full disk): logging must not take the program down.
 */
export async function openLogFile(
  dir: string,
  name: string,
  options: { rotation?: LogRotation; onError: (error: Error) => void },
): Promise<LogFile> {
  const { size, files } = options.rotation ?? DEFAULT_LOG_ROTATION;
  const link = join(dir, `${name}.log`);
  let path = link;
  // After each open: a file left by an earlier run keeps its own mode, so it is made 0600; the
  // link follows the file being written.
  const opened = (file: string) => {
    restrictMode(file, PRIVATE_FILE_MODE);
    path = pointLink(link, file) ? link : file;
  };
  let stream: RotatingFile;
  try {
    ensurePrivateDir(dir);
    stream = openRotatingFile({
      dir,
      name,
      maxBytes: parseLogSize(size),
      keep: files,
      mode: PRIVATE_FILE_MODE,
      onOpen: opened,
      onError: options.onError,
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new StartupError(`log file ${link} cannot be opened (${code ?? message}); fix ${dir} or DATA_DIR`, {
      cause: error,
    });
  }
  return {
    get path() {
      return path;
    },
    stream,
  };
}

/** Makes `link` point at `target` (same directory), replaced in one step; false where it cannot. */
function pointLink(link: string, target: string): boolean {
  const relative = basename(target);
  try {
    if (readlinkSync(link) === relative) return true;
  } catch (error) {
    // ENOENT: no link yet. Anything else (a regular file of that name) is not ours to replace.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  const temp = `${link}.${process.pid}.tmp`;
  try {
    rmSync(temp, { force: true });
    symlinkSync(relative, temp);
    renameSync(temp, link);
    return true;
  } catch {
    // Windows without the right to make links: the numbered file is named instead.
    rmSync(temp, { force: true });
    return false;
  }
}
