import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { ToolError } from "./tool.ts";

// Every path a tool touches must lie under WORKING_DIR after symlinks are resolved,
// so neither `..` nor a symlink pointing elsewhere can escape it.

const MAX_PATH_LENGTH = 4096;

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
    if (code === "ENOENT") throw new ToolError(`no such file or directory: ${requested}`);
    if (code === "ENAMETOOLONG") throw new ToolError("path is too long");
    throw new ToolError(`cannot access ${requested}: ${code ?? (error as Error).message}`);
  }
  const rel = relative(rootReal, real);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new ToolError(`"${requested}" is outside the working directory (${root}); access refused`);
  }
  return real;
}

/** The path as the user should see it: relative to the working directory. */
export function displayPath(root: string, absolute: string): string {
  return relative(realpathSync(root), absolute) || ".";
}
