import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ToolError } from "../contracts/tool.ts";

// Every path a tool touches must lie under WORKING_DIR after symlinks are resolved,
// so neither `..` nor a symlink pointing elsewhere can escape it. This checks a path; the
// file tools also check what they actually opened (files/open-inside.ts), since the path
// can change between this check and the open.

const MAX_PATH_LENGTH = 4096;

/** Whether `real` (a real, absolute path) is `rootReal` or lies under it. */
export function isInside(rootReal: string, real: string): boolean {
  const rel = relative(rootReal, real);
  return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** The path does not exist (a caller may create it: a new project's directory). */
export class PathNotFound extends ToolError {}

export function outsideError(root: string, requested: string): ToolError {
  return new ToolError(`"${requested}" is outside the working directory (${root}); access refused`);
}

export function resolveInside(root: string, requested: string): string {
  if (requested.includes("\0")) throw new ToolError("path contains a NUL byte");
  if (requested.length > MAX_PATH_LENGTH)
    throw new ToolError(`path is longer than ${MAX_PATH_LENGTH} characters`);
  const rootReal = realpathSync(root);
  const candidate = resolve(rootReal, requested || ".");
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new PathNotFound(`no such file or directory: ${requested}`);
    if (code === "ENAMETOOLONG") throw new ToolError("path is too long");
    throw new ToolError(`cannot access ${requested}: ${code ?? (error as Error).message}`);
  }
  if (!isInside(rootReal, real)) throw outsideError(root, requested);
  return real;
}

/** The path as the user should see it: relative to the working directory. */
export function displayPath(root: string, absolute: string): string {
  return relative(realpathSync(root), absolute) || ".";
}
