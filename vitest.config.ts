import nodeModule from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { LongestFirst } from "./scripts/vitest-sequencer.ts";

// Two projects, run together in one pool:
// - unit (`*.unit.test.ts`): no sockets, no processes; threads, modules shared between files.
// - integration: `*.test.ts` (routers, hosts and fakes in process, on real sockets) and
//   `*.e2e.test.ts` (the built app as processes, the coding CLIs, a browser, the sandbox). One
//   project, so one set of workers imports the app's code once each (two projects had a set each,
//   every worker importing it again: about 3 CPU-s a worker), and vite transforms each file once.
// Integration and e2e files mostly wait on sockets and processes, so more of them run at once
// than there are cores. Unit files only compute: they run after the rest (their own group), one
// worker a core, as more workers would only import the app's code again each (on 2 cores, 5
// workers cost about 10 CPU-s more than 2, and took longer). `pnpm test:unit` runs them alone.

const tests = ["packages/*/test/**/", "apps/*/test/**/", "scripts/test/"];
const timeouts = { testTimeout: 30_000, hookTimeout: 30_000 };
/** Support modules' teardown after every test (testkit's afterEachTest). */
const setupFiles = ["packages/testkit/src/vitest-setup.ts"];
/** Builds the package's files once: the tests that start an app start those. */
const build = { globalSetup: ["scripts/vitest-global-setup.ts"] };

const projects: TestProjectInlineConfiguration[] = [
  {
    test: {
      name: "unit",
      include: tests.map((dir) => `${dir}*.unit.test.ts`),
      pool: "threads",
      isolate: false,
      maxWorkers: availableParallelism(),
      sequence: { groupOrder: 1 },
      setupFiles,
      ...timeouts,
    },
  },
  {
    test: {
      name: "integration",
      include: tests.map((dir) => `${dir}*.test.ts`),
      sequence: { groupOrder: 0 },
      exclude: ["**/node_modules/**", "**/*.unit.test.ts"],
      pool: "forks",
      // Files share a worker's modules (the app's code is imported once per worker, not per file);
      // nothing the tests share is module state but their teardown, which setupFiles runs.
      isolate: false,
      setupFiles,
      // The build, then one Chromium for every browser test of the run.
      globalSetup: [...build.globalSetup, "apps/router/test/browser-setup.ts"],
      ...timeouts,
    },
  },
];

// V8's compiled code, kept on disk for every Node process of the run: the workers (vitest, tsx,
// playwright, the SDKs), the scripts the tests start with tsx, the pnpm scripts they run. The built
// app keeps its own the same way (main.ts); this puts the rest beside it. The first run compiles
// as before; later ones skip most of the parsing (about 0.3 CPU-s a worker).
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "phonework-test-compile-cache");
nodeModule.enableCompileCache?.(process.env.NODE_COMPILE_CACHE);

export default defineConfig({
  test: {
    projects,
    maxWorkers: Number(process.env.TEST_WORKERS ?? 5),
    sequence: { sequencer: LongestFirst },
  },
});
