import { existsSync, fstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../contracts/tool.ts";
import { isInside, outsideError } from "../os/path-guard.ts";

// Where an open descriptor really is. A path can be swapped (a directory for a symlink) between
// checking it and opening it, so the file tools check the descriptor they opened instead.
// With /proc (Linux) the kernel says the descriptor's path, and a directory descriptor anchors
// the names under it (/proc/self/fd/N/name resolves within N, whatever its path is now).
// Without /proc (macOS) the descriptor must be the very inode found at the path's realpath,
// which must lie inside; names under a directory are then looked up by path again.
// That fallback narrows the race but cannot close it: realpath and stat are two more lookups
// by path, and a swap that lands between them (symlink for stat, directory for realpath) still
// passes. Node offers no openat/F_GETPATH to do better; under the test's swapper it let a few
// reads in ten thousand through, against none with /proc.

export type DescriptorCheck = "proc" | "inode";

export interface Boundary {
  /** The root as configured (WORKING_DIR, or the workspace), for messages. */
  root: string;
  rootReal: string;
  check: DescriptorCheck;
  /** Real paths inside the root that do not exist for this caller (other chats' directories). */
  hidden: readonly string[];
  /** Show paths whole rather than relative to the root (the workspace, named by absolute paths). */
  showAbsolute: boolean;
}

export interface BoundaryOptions {
  check?: DescriptorCheck;
  hidden?: readonly string[];
  showAbsolute?: boolean;
}

export function createBoundary(root: string, options: BoundaryOptions = {}): Boundary {
  return {
    root,
    rootReal: realpathSync(root),
    check: options.check ?? detectCheck(),
    hidden: (options.hidden ?? []).flatMap(realOrNone),
    showAbsolute: options.showAbsolute ?? false,
  };
}

/** A hidden directory's real path, to compare with what descriptors say; none when it is gone. */
function realOrNone(path: string): string[] {
  try {
    return [realpathSync(path)];
  } catch {
    return [];
  }
}

/** Whether `real` is a hidden directory or inside one. */
export function isHidden(boundary: Boundary, real: string): boolean {
  return boundary.hidden.some((dir) => isInside(dir, real));
}

function detectCheck(): DescriptorCheck {
  return existsSync("/proc/self/fd") ? "proc" : "inode";
}

/** The path to open `name` inside the directory open as `dirFd` (real path `dirPath`). */
export function childPath(boundary: Boundary, dirFd: number, dirPath: string, name: string): string {
  return boundary.check === "proc" ? join(`/proc/self/fd/${dirFd}`, name) : join(dirPath, name);
}

/** The directory open as `dirFd`, to read its entries: the descriptor itself where /proc allows. */
export function dirPathFor(boundary: Boundary, dirFd: number, dirPath: string): string {
  return boundary.check === "proc" ? `/proc/self/fd/${dirFd}` : dirPath;
}

/**
 * Throws unless the descriptor `fd`, opened for `path` (`shown` to the user), is inside the
 * working directory now.
 */
export function verifyDescriptor(boundary: Boundary, fd: number, path: string, shown: string): void {
  const changed = () => new ToolError(`${shown} changed while it was being opened; access refused`);
  let real: string;
  try {
    real = boundary.check === "proc" ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync(path);
  } catch {
    throw changed();
  }
  if (!isInside(boundary.rootReal, real)) throw outsideError(boundary.root, shown);
  // Said like a missing file: another chat's directory is not there for this caller.
  if (isHidden(boundary, real)) throw new ToolError(`no such file or directory: ${shown}`);
  if (boundary.check === "proc") return;
  let opened: ReturnType<typeof fstatSync>;
  let atPath: ReturnType<typeof statSync>;
  try {
    opened = fstatSync(fd);
    atPath = statSync(real);
  } catch {
    throw changed();
  }
  if (opened.dev !== atPath.dev || opened.ino !== atPath.ino) throw changed();
}
