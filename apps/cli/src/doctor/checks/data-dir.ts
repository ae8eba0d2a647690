import { accessSync, constants, type Stats, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Check, fail, ok, warn } from "./check.ts";

// DATA_DIR holds the node key, history and logs: it must be a writable directory that only its
// owner can read (0700). Looked at only; the programs create it and fix its mode at start.

const TITLE = "DATA_DIR";
const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, "0")}`;

export function checkDataDir(dir: string): Check {
  let stat: Stats;
  try {
    stat = statSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return missing(dir);
    return fail(
      TITLE,
      `${dir} cannot be looked at (${code})`,
      `fix its permissions, or point DATA_DIR elsewhere`,
    );
  }
  if (!stat.isDirectory()) return fail(TITLE, `${dir} is not a directory`, "point DATA_DIR at a directory");
  if (!canWrite(dir))
    return fail(
      TITLE,
      `${dir} is not writable by this user`,
      `make it yours (chown -R "$(id -un)" ${dir}) or point DATA_DIR elsewhere`,
    );
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0)
    return warn(
      TITLE,
      `${dir} is mode ${octal(mode)}: other users can look into it (keys, history)`,
      `chmod 700 ${dir}`,
    );
  return ok(TITLE, `${dir} (writable, mode ${octal(mode)})`);
}

/** Not there yet: fine if it can be created, since every program creates it at start. */
function missing(dir: string): Check {
  let parent = dirname(dir);
  let stat: Stats | undefined;
  for (;;) {
    try {
      stat = statSync(parent);
      break;
    } catch {
      if (dirname(parent) === parent) break;
      parent = dirname(parent);
    }
  }
  const create = `create it (mkdir -p ${dir} && chmod 700 ${dir}) as a user who may, or point DATA_DIR elsewhere`;
  if (!stat?.isDirectory())
    return fail(TITLE, `${dir} does not exist and cannot be created: ${parent} is not a directory`, create);
  if (!canWrite(parent))
    return fail(TITLE, `${dir} does not exist and cannot be created: ${parent} is not writable`, create);
  return warn(TITLE, `${dir} does not exist yet; it is created (mode 0700) at the first start`);
}

function canWrite(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
