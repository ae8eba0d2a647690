import { join } from "node:path";
import { buildCli, outDir } from "./bundle-cli.ts";
import { buildConsole, copyConsole } from "./bundle-console.ts";

// What `pnpm build` makes, and the test suite's global setup before any test spawns an app:
// apps/cli/dist/phonework.js and its chunks (see bundle-cli.ts), and the web console's page
// (see bundle-console.ts) beside the bundled CLI (dist/console/) and for the router in the repo.
// `pnpm package` makes the same files in its own directory and packs them, so a package made while
// tests run the repo's build never pulls it from under them.

/**
 * Builds the CLI and its console page into `dir` (default apps/cli/dist; then the repo router's page
 * too); returns the third-party packages bundled (for their licences). `pnpm package` asks for the
 * CLI's ASCII rewrite to be proven (see ascii-output.ts).
 */
export async function buildPhonework(
  dir = outDir,
  options: { proveAscii?: boolean } = {},
): Promise<{ cliPackages: string[]; consolePackages: string[] }> {
  // Both at once (esbuild runs them side by side). buildCli first: it empties `dir` before its
  // first await, so the page's rename into dir/console comes after that.
  const cli = buildCli(dir, options);
  const page = buildConsole(join(dir, "console"));
  const [cliPackages, { packages: consolePackages }] = await Promise.all([cli, page]);
  if (dir === outDir) copyConsole(join(dir, "console"));
  return { cliPackages, consolePackages };
}
