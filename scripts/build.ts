import { join } from "node:path";
import { buildCli, outDir } from "./bundle-cli.ts";
import { buildConsole } from "./bundle-console.ts";

// `pnpm build`: apps/cli/dist/phonework.js (see bundle-cli.ts), and the web console's page (see
// bundle-console.ts) for the router in the repo and beside the bundled CLI (dist/console/).
await buildCli();
await buildConsole();
await buildConsole(join(outDir, "console"));
