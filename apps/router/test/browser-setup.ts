import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium-options.ts";

// Vitest's global setup (integration project): one Chromium for the whole run, which every browser
// test connects to (launchChromium in console-support.ts) instead of starting its own. Each test
// file still gets a fresh browser context per page, so nothing is shared but the process.

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket endpoint (playwright's launchServer). */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  project.provide("chromiumEndpoint", server.wsEndpoint());
  return () => server.close();
}
