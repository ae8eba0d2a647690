import { delimiter, sep } from "node:path";

// Started by `pnpm host` (or `npm run`), a program inherits the package manager's additions to its
// environment: the repository's node_modules/.bin first on PATH — so `/shell claude` and coding
// sessions would run the repo's test copy instead of the user's own `claude` — and dozens of
// npm_* variables. The commands a host runs are the user's, in the user's environment.

/** Variables a package manager sets for the scripts it runs. */
const ADDED = /^(npm_|PNPM_SCRIPT_SRC_DIR$|INIT_CWD$)/;

function isAddedPathEntry(entry: string): boolean {
  const trimmed = entry.endsWith(sep) ? entry.slice(0, -1) : entry;
  return trimmed.endsWith(`${sep}node_modules${sep}.bin`) || trimmed.includes(`${sep}node-gyp-bin`);
}

/**
 * The environment without what a package manager added; unchanged when no package manager ran
 * this program (a user's own PATH may hold a node_modules/.bin on purpose).
 */
export function withoutPackageManager(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.npm_lifecycle_event === undefined) return env;
  const cleaned: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!ADDED.test(key)) cleaned[key] = value;
  if (env.PATH !== undefined)
    cleaned.PATH = env.PATH.split(delimiter)
      .filter((entry) => !isAddedPathEntry(entry))
      .join(delimiter);
  return cleaned;
}

/** Makes this process's own environment (inherited by every command it runs) the user's. */
export function leavePackageManagerEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  const cleaned = withoutPackageManager(env);
  if (cleaned === env) return;
  for (const key of Object.keys(env)) if (!(key in cleaned)) delete env[key];
  if (cleaned.PATH !== undefined) env.PATH = cleaned.PATH;
}
