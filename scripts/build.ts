import { buildCli } from "./bundle-cli.ts";

// `pnpm build`: apps/cli/dist/phonework.js (see bundle-cli.ts).
await buildCli();
