import { readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import pinoRoll, { type RollingFile } from "pino-roll";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode } from "./private-files.ts";
import { StartupError } from "./startup-error.ts";

// The log of a program whose terminal is the chat, in DATA_DIR/logs. pino-roll writes numbered
// files (<name>.1.log, <name>.2.log, …), starts the next one at a size and deletes the oldest;
// <name>.log is a symbolic link to the one being written, so one name always shows the newest
// lines and `tail -F` follows rotations.

export interface LogRotation {
  /** A file this big is closed and the next one started: pino-roll's notation, `10m`, `512k`. */
  size: string;
  /** Files kept, the one being written included; older ones are deleted at each rotation. */
  files: number;
}

export const DEFAULT_LOG_ROTATION: LogRotation = { size: "10m", files: 5 };

export interface LogFile {
  /** The name to give people: `<dir>/<name>.log` (where symbolic links cannot be made, the file itself). */
  path: string;
  stream: RollingFile;
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
  let stream: RollingFile;
  try {
    ensurePrivateDir(dir);
    stream = await pinoRoll({
      // pino-roll takes `.log` off and writes `<name>.<n>.log`.
      file: link,
      size,
      // Counting the files of earlier runs too, or every restart would leave its files behind.
      limit: { count: files, removeOtherLogFiles: true },
      mode: PRIVATE_FILE_MODE,
      sync: true,
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new StartupError(`log file ${link} cannot be opened (${code ?? message}); fix ${dir} or DATA_DIR`, {
      cause: error,
    });
  }
  stream.on("error", options.onError);
  let path = link;
  const opened = () => {
    // A file left by an earlier run keeps its own mode; new ones are created 0600.
    restrictMode(stream.file, PRIVATE_FILE_MODE);
    path = pointLink(link, stream.file) ? link : stream.file;
  };
  opened();
  stream.on("ready", opened); // after every rotation
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
