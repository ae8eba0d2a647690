import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { setupFiles, testDirs, timeouts } from "./vitest.config.ts";

// `pnpm test:unit`: the unit files alone (`*.unit.test.ts`: no sockets, no processes, no build),
// in threads sharing their modules, one worker a core: they only compute, and each worker more
// would import the app's code again. `pnpm test` runs them with the rest (vitest.config.ts).
export default defineConfig({
  test: {
    include: testDirs.map((dir) => `${dir}*.unit.test.ts`),
    pool: "threads",
    isolate: false,
    setupFiles,
    ...timeouts,
    maxWorkers: availableParallelism(),
  },
});
