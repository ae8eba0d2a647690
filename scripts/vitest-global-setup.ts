import { buildPhonework } from "./build-phonework.ts";

// Vitest's global setup (the integration project, e2e files included): `pnpm build` once per run,
// before any test runs, so every test that starts an app starts the files the package ships
// (spawnApp), never TypeScript through a loader. A second setup in the same run finds it done.
export default async function setup(): Promise<void> {
  if (process.env.PHONEWORK_TEST_BUILT) return;
  const started = Date.now();
  await buildPhonework();
  process.env.PHONEWORK_TEST_BUILT = String(Date.now() - started);
}
