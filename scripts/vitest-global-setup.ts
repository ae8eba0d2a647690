import { buildPhonework } from "./build-phonework.ts";

// Vitest's global setup (integration and e2e): `pnpm build` once per run, before any test runs, so
// every test that starts an app starts the files the package ships (spawnApp), never TypeScript
// through a loader. Both projects name it; the second finds it done.
export default async function setup(): Promise<void> {
  if (process.env.PHONEWORK_TEST_BUILT) return;
  const started = Date.now();
  await buildPhonework();
  process.env.PHONEWORK_TEST_BUILT = String(Date.now() - started);
}
