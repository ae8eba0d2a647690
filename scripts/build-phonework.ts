import { join } from "node:path";
import { buildCli, outDir } from "./bundle-cli.ts";
import { buildConsole } from "./bundle-console.ts";

// What `pnpm build` makes, and the test suite's global setup before any test spawns an app:
// apps/cli/dist/phonework.js and its chunks (see bundle-cli.ts), and the web console's page
// (see bundle-console.ts) for the router in the repo and beside the bundled CLI (dist/console/).
// These are the files the package carries (scripts/package.ts packs this directory).

/** Builds everything; returns the third-party packages bundled into the CLI (for their licences). */
export async function buildPhonework(): Promise<{ cliPackages: string[]; consolePackages: string[] }> {
  const cliPackages = await buildCli();
  const { packages: consolePackages } = await buildConsole();
  await buildConsole(join(outDir, "console"));
  return { cliPackages, consolePackages };
}
