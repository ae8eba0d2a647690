import { existsSync } from "node:fs";
import { join } from "node:path";

// Where the built page is (`pnpm build`): beside the bundled CLI (dist/console/), or in the repo
// under apps/router/dist/console/. Undefined when it is not built: the console then says so.

export const CONSOLE_ENTRY = "console.js";

export function consoleAssetsDir(here = import.meta.dirname): string | undefined {
  const candidates = [join(here, "console"), join(here, "..", "..", "dist", "console")];
  return candidates.find((dir) => existsSync(join(dir, CONSOLE_ENTRY)));
}
