import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

// Where a command would be found: `claude` on the PATH, or a path given in CLAUDE_BIN. Checked
// before a coding session is created (a missing CLI is a sentence, not `spawn … ENOENT` after the
// fact) and for the capabilities a host reports (only the CLIs it actually has).

export function findExecutable(command: string, pathEnv: string | undefined): string | undefined {
  const candidates = command.includes("/")
    ? [isAbsolute(command) ? command : resolve(command)]
    : (pathEnv ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  return candidates.find(isExecutableFile);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
