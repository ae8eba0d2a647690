import { mkdirSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ToolError } from "../contracts/tool.ts";
import { isInside, PathNotFound, resolveInside } from "../os/path-guard.ts";

// Where a coding session runs: a project directory under WORKING_DIR, as the real path (symlinks
// resolved) so the agent is never started outside it.

const PROJECT_NAME = /^(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** The project's directory under WORKING_DIR, created if it does not exist yet. */
export function projectDir(workingDir: string, project: string): string {
  if (!PROJECT_NAME.test(project)) {
    throw new ToolError(
      `"${project}" is not a valid project name (letters, digits, . _ - and / only; no ..)`,
    );
  }
  try {
    return resolveInside(workingDir, project);
  } catch (error) {
    if (!(error instanceof PathNotFound)) throw error;
    mkdirSync(join(workingDir, project), { recursive: true });
    return resolveInside(workingDir, project);
  }
}

/**
 * Where to continue work that ran in `dir` (a Codex thread's directory): there, when it is still
 * a directory under WORKING_DIR; otherwise WORKING_DIR itself (project "."), never outside it.
 */
export function placeInside(workingDir: string, dir: string | undefined): { project: string; cwd: string } {
  const root = realpathSync(workingDir);
  if (dir) {
    try {
      const real = realpathSync(dir);
      if (isInside(root, real) && statSync(real).isDirectory())
        return { project: relative(root, real) || ".", cwd: real };
    } catch {
      // Gone since (or unreadable): WORKING_DIR, below.
    }
  }
  return { project: ".", cwd: root };
}
