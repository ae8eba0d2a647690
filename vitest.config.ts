import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./scripts/vitest-sequencer.ts";

// `pnpm test`: every test file in one pool of workers:
// - unit (`*.unit.test.ts`): no sockets, no processes (`pnpm test:unit` runs them alone, with
//   vitest.unit.config.ts);
// - `*.test.ts`: routers, hosts and fakes in process, on real sockets;
// - `*.e2e.test.ts`: the built app as processes, the coding CLIs, a browser, the sandbox.
// One project, so one set of workers imports the app's code once each, and vite transforms each
// file once: every worker a project adds imports it again (about 3 CPU-s a worker). The unit files
// run last, on workers that have imported it all already (in a project of their own, on 2
// workers, they cost about 5 CPU-s more). Integration and e2e files mostly wait on sockets and
// processes, so more of them run at once than there are cores.

export const testDirs = ["packages/*/test/**/", "apps/*/test/**/", "scripts/test/"];
export const timeouts = { testTimeout: 30_000, hookTimeout: 30_000 };
/** Support modules' teardown after every test (testkit's afterEachTest). */
export const setupFiles = ["packages/testkit/src/vitest-setup.ts"];

// V8's compiled code, kept on disk for every Node process of the run: the workers (vitest, tsx,
// playwright, the SDKs), the scripts the tests start with tsx, the pnpm scripts they run. The built
// app keeps its own the same way (main.ts); this puts the rest beside it. The first run compiles
// as before; later ones skip most of the parsing (about 0.3 CPU-s a worker).
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "phonework-test-compile-cache");
nodeModule.enableCompileCache?.(process.env.NODE_COMPILE_CACHE);

export default defineConfig({
  test: {
    include: testDirs.map((dir) => `${dir}*.test.ts`),
    pool: "forks",
    // Files share a worker's modules (the app's code is imported once per worker, not per file);
    // nothing the tests share is module state but their teardown, which setupFiles runs.
    isolate: false,
    setupFiles,
    // The build (every test that starts an app starts the files the package ships), then one
    // Chromium for every browser test of the run.
    globalSetup: ["scripts/vitest-global-setup.ts", "apps/router/test/browser-setup.ts"],
    ...timeouts,
    maxWorkers: Number(process.env.TEST_WORKERS ?? 5),
    sequence: { sequencer: LongestFirst },
  },
});
