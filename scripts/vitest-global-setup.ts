import { buildPhonework } from "./build-phonework.ts";

// Vitest's global setup: `pnpm build` once, before any test runs, so every test that starts an
// app starts the files the package ships (spawnApp), never TypeScript through a loader.
export default async function setup(): Promise<void> {
  await buildPhonework();
}
