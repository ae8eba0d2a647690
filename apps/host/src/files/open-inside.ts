import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../contracts/tool.ts";
import { displayPath, resolveInside } from "../os/path-guard.ts";
import { type Boundary, childPath, verifyDescriptor } from "./boundary.ts";

// Opening a file or directory for the file tools: open first, then check the opened descriptor
// (boundary.ts), and read only through that descriptor, so a swap between the path check and
// the open cannot lead outside WORKING_DIR.

/** O_NOFOLLOW: the last name must not be a symlink now (it was not one when checked).
 * O_NONBLOCK: a FIFO swapped in cannot hang the open; it is refused by its type afterwards. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface Opened {
  fd: number;
  /** fstat of the descriptor: what was opened, not what the path names now. */
  stat: Stats;
  /** The real path it was opened at. */
  path: string;
  /** The path as the user sees it: relative to WORKING_DIR, or whole in the workspace. */
  shown: string;
}

function openFd(openPath: string, realPath: string, shown: string, boundary: Boundary): Opened {
  let fd: number;
  try {
    fd = openSync(openPath, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ToolError(`no such file or directory: ${shown}`);
    if (code === "ELOOP") throw new ToolError(`${shown} changed into a symbolic link; access refused`);
    throw new ToolError(`cannot open ${shown}: ${code ?? (error as Error).message}`);
  }
  try {
    verifyDescriptor(boundary, fd, realPath, shown);
    return { fd, stat: fstatSync(fd), path: realPath, shown };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Opens the file or directory the user named; throws a ToolError unless it is inside WORKING_DIR. */
export function openInside(boundary: Boundary, requested: string): Opened {
  const real = resolveInside(boundary.root, requested);
  return openFd(real, real, boundary.showAbsolute ? real : displayPath(boundary.root, real), boundary);
}

/** Opens the entry `name` of the open directory `dir`, without following a symlink. */
export function openChild(boundary: Boundary, dir: Opened, name: string): Opened {
  const real = join(dir.path, name);
  return openFd(childPath(boundary, dir.fd, dir.path, name), real, join(dir.shown, name), boundary);
}

/** Runs `use` on the opened entry, then closes it. */
export function using<T>(opened: Opened, use: (opened: Opened) => T): T {
  try {
    return use(opened);
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Refuses a regular file with more than one hard link: the other names may be outside WORKING_DIR
 * (`ln /etc/somefile WORKING_DIR/x`), and nothing says where they are. Honest files have them too
 * (pnpm's store and local git clones hard-link), but we cannot tell those apart, so we refuse.
 */
export function refuseHardLinked(opened: Opened): void {
  if (opened.stat.isFile() && opened.stat.nlink > 1) {
    throw new ToolError(
      `${opened.shown} has ${opened.stat.nlink} hard links and may be another name for a file ` +
        "outside the working directory; refused",
    );
  }
}
