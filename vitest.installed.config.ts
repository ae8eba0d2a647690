import { defineConfig } from "vitest/config";

// `pnpm test:installed`: the end-to-end suite against the installed package (apps/cli/test-installed).
// Its global setup packs the tarball and installs it once, with npm install -g, on the Node under
// test (PHONEWORK_NODE, default this one); every test runs that install's `phonework`.
export default defineConfig({
  test: {
    include: ["apps/cli/test-installed/**/*.test.ts"],
    globalSetup: ["apps/cli/test-installed/global-setup.ts"],
    pool: "forks",
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
