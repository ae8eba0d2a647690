import { existsSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { AppName } from "../programs/app-name.ts";
import { ServiceError } from "./service-error.ts";

// The command line a service runs: this node, this phonework, the app, the config. Absolute paths
// throughout, because a service manager starts it with no shell, no PATH lookup of ours and
// another working directory.

export interface LaunchInputs {
  app: AppName;
  /** The node running now (process.execPath). */
  execPath: string;
  /** The script node was started with (process.argv[1]); a symlink (npm's bin) is followed. */
  entry: string | undefined;
  /** As given on the command line; resolved against `cwd`. */
  configPath: string | undefined;
  /** The program's own key flags, as given (`--working-dir ./projects`); paths resolved against `cwd`. */
  flags?: readonly string[];
  cwd: string;
}

/** Flags whose value is a path: a service starts elsewhere, so a relative one is made absolute. */
const PATH_FLAGS = new Set(["--data-dir", "--working-dir"]);

export interface LaunchCommand {
  argv: string[];
  /** The absolute config path baked in, if any. */
  configPath: string | undefined;
  /** Run from a source checkout (TypeScript through the tsx loader), not the installed package. */
  fromSource: boolean;
}

export function launchCommand(inputs: LaunchInputs): LaunchCommand {
  if (!inputs.entry) throw new ServiceError("cannot tell which script runs phonework (no argv[1])");
  if (!isAbsolute(inputs.execPath)) throw new ServiceError(`node's path ${inputs.execPath} is not absolute`);
  let entry: string;
  try {
    entry = realpathSync(inputs.entry);
  } catch {
    throw new ServiceError(`cannot find the running phonework script ${inputs.entry}`);
  }
  const fromSource = entry.endsWith(".ts");
  // From the repo, `node --import tsx main.ts` finds tsx from the working directory; the service
  // starts in the home directory, so the loader is baked in by its absolute path instead.
  const loader = fromSource ? ["--import", tsxLoader(entry)] : [];
  const configPath =
    inputs.configPath === undefined ? undefined : existingFile(inputs.configPath, inputs.cwd);
  return {
    argv: [
      inputs.execPath,
      ...loader,
      entry,
      inputs.app,
      ...(configPath ? ["--config", configPath] : []),
      ...absoluteFlags(inputs.flags ?? [], inputs.cwd),
    ],
    configPath,
    fromSource,
  };
}

/**
 * The tsx loader's absolute path. Node resolves it to pnpm's store (`.pnpm/tsx@4.x/…`), which moves
 * when tsx is updated; the `node_modules/tsx` link above the entry does not, so that is preferred.
 */
function tsxLoader(entry: string): string {
  let loader: string;
  try {
    loader = createRequire(entry).resolve("tsx");
  } catch {
    throw new ServiceError(
      `${entry} is TypeScript but the tsx loader is not installed beside it: run pnpm install there, or install the phonework package and run its service install`,
    );
  }
  const marker = `${sep}node_modules${sep}tsx${sep}`;
  const at = loader.lastIndexOf(marker);
  if (at < 0) return loader;
  const packageRoot = loader.slice(0, at + marker.length - 1);
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const link = join(dir, "node_modules", "tsx");
    if (existsSync(link) && realpathSync(link) === packageRoot)
      return join(link, relative(packageRoot, loader));
  }
  return loader;
}

function existingFile(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    throw new ServiceError(`config file ${absolute} does not exist`, 2);
  }
  if (!isFile) throw new ServiceError(`config file ${absolute} is not a file`, 2);
  return absolute;
}

function absoluteFlags(flags: readonly string[], cwd: string): string[] {
  return flags.map((value, i) => {
    const flag = flags[i - 1] ?? "";
    const relativePath = PATH_FLAGS.has(flag) && !value.startsWith("~") && !isAbsolute(value);
    return relativePath ? resolve(cwd, value) : value;
  });
}
