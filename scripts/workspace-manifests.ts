import { readFileSync } from "node:fs";
import { join } from "node:path";

// What the published `phonework` package is made of: the workspace's own code (bundled in) and
// the third-party packages that code imports at run time (installed beside it, never bundled:
// native addons and pino's worker-thread transports must stay real packages).

export const repoRoot = join(import.meta.dirname, "..");

/** The workspace packages the CLI bundles; testkit and the dev tools are not among them. */
export const BUNDLED = [
  "packages/protocol",
  "packages/runtime",
  "apps/router",
  "apps/host",
  "apps/standalone",
  "apps/cli",
];

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as Manifest;
}

/** Every third-party runtime dependency of the bundled packages, with the range they ask for. */
export function runtimeDependencies(): Record<string, string> {
  const all: Record<string, string> = {};
  for (const dir of BUNDLED) {
    for (const [name, range] of Object.entries(manifest(dir).dependencies ?? {})) {
      if (name.startsWith("@phonework/")) continue;
      const seen = all[name];
      if (seen !== undefined && seen !== range)
        throw new Error(`${name} is asked for as ${seen} and as ${range}: use one range in every package`);
      all[name] = range;
    }
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
}

export function cliVersion(): string {
  return manifest("apps/cli").version;
}

export function rootEngines(): Record<string, string> {
  return (
    JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: Record<string, string> }
  ).engines;
}
