import { readFileSync } from "node:fs";
import { join } from "node:path";

// What the published `phonework` package is made of: the workspace's own code and the pure
// JavaScript it loads at every start, bundled into one set of files (fewer files to find and
// parse: a router idles ~10 MiB smaller and starts faster), plus the packages in PACKAGE_DEPENDENCIES,
// installed beside it.

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
  optionalDependencies?: Record<string, string>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as Manifest;
}

/**
 * Stay real packages: better-sqlite3 is a native addon built for the user's Node; yaml and
 * pino-pretty are required lazily. The SDKs loaded only when used (the chat platforms', OpenAI's,
 * the MCP client) are bundled into chunks of their own, loaded by the same dynamic imports: as
 * packages, openai took 21 MB on disk and the MCP SDK 30 MB with the server side it brings
 * (express, hono, a second zod), of which the bundle needs ~0.6 MB.
 */
export const PACKAGE_DEPENDENCIES = [
  "better-sqlite3",
  // Loads its TypeScript transform from its own files at run time (the custom tools' loader).
  "jiti",
  // Required on demand, synchronously, where a bundler cannot see it (a config file, pretty logs).
  "yaml",
  "pino-pretty",
];

/**
 * Native addons a feature needs but the rest does not: optional in the published manifest, so an
 * install where one fails to build still succeeds, and that feature says why it is unavailable.
 * @lydell/node-pty: terminals on a host, loaded on first use (node-pty with a prebuilt binary per platform).
 * sharp: images users send, decoded and scaled for the models (libvips, a prebuilt binary per
 * platform); without it images go by path only.
 * sodium-native: the router's check of hosts' Ed25519 handshakes (libsodium, ~half OpenSSL's CPU);
 * without it Node's OpenSSL checks them.
 */
export const OPTIONAL_PACKAGE_DEPENDENCIES = ["@lydell/node-pty", "sharp", "sodium-native"];

/** The optional dependencies the published manifest lists. */
export function packageOptionalDependencies(): Record<string, string> {
  const all: Record<string, string> = {};
  for (const dir of BUNDLED) Object.assign(all, manifest(dir).optionalDependencies);
  return Object.fromEntries(OPTIONAL_PACKAGE_DEPENDENCIES.sort().map((name) => [name, required(all, name)]));
}

/** The runtime dependencies the published manifest lists (the rest is in the bundle). */
export function packageDependencies(): Record<string, string> {
  const all = runtimeDependencies();
  return Object.fromEntries(PACKAGE_DEPENDENCIES.sort().map((name) => [name, required(all, name)]));
}

function required(all: Record<string, string>, name: string): string {
  const range = all[name];
  if (range === undefined) throw new Error(`${name} is not a runtime dependency of any bundled package`);
  return range;
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
