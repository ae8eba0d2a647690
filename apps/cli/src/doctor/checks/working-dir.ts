import { accessSync, constants, existsSync } from "node:fs";
import { type Check, ok, warn } from "./check.ts";

// WORKING_DIR is where shell commands and coding sessions start. The config already refuses one
// that is not an existing directory, but the default (~/phonework) is made at the first start;
// here: can this user change files in it.

export function checkWorkingDir(dir: string): Check {
  if (!existsSync(dir)) return ok("WORKING_DIR", `${dir} (made at the first start)`);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return ok("WORKING_DIR", `${dir} (writable)`);
  } catch {
    return warn(
      "WORKING_DIR",
      `${dir} is not writable by this user: coding sessions cannot change files there`,
      "point WORKING_DIR at your projects",
    );
  }
}
