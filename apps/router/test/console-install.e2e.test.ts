import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium-options.ts";
import { buildTestAssets, consoleLinkFor, PHONE, waitForLive } from "./console-support.ts";
import { startTestRouter, tempDataDir } from "./support.ts";

// The console as an installable app, judged by Chromium itself: the manifest, the icons and the
// service worker are served, the worker takes control of the page, and Chromium finds nothing that
// stops "Add to Home Screen" (Page.getInstallabilityErrors). A Chromium of its own, with a profile
// on disk: the shared one's contexts are incognito, where nothing is installable.

let browser: BrowserContext;

/** The page's globals used here (this tsconfig has no DOM types). */
interface PageGlobals {
  navigator: { serviceWorker: { ready: Promise<{ scope: string }> } };
  caches: { open(name: string): Promise<{ keys(): Promise<{ url: string }[]> }> };
}

beforeAll(async () => {
  browser = await chromium.launchPersistentContext(tempDataDir(), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: PHONE,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("the console, installable", () => {
  it("serves its manifest and service worker, and Chromium finds it installable", async () => {
    const assets = await buildTestAssets();
    const { url, chat } = await startTestRouter({}, { consoleAssets: assets.dir });

    // Served without a sign-in (browsers fetch manifests without cookies), with the right types.
    const manifest = await fetch(`${url}/console/manifest.webmanifest`);
    expect(manifest.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    const body = (await manifest.json()) as { icons: { src: string; sizes: string }[]; display: string };
    expect(body.display).toBe("standalone");
    expect(body.icons.map((icon) => icon.sizes)).toEqual(["192x192", "512x512"]);
    for (const icon of body.icons) {
      const png = Buffer.from(await (await fetch(`${url}${icon.src}`)).arrayBuffer());
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes); // IHDR's width and height
    }
    const worker = await fetch(`${url}/console/service-worker.js`);
    expect(worker.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(worker.headers.get("service-worker-allowed")).toBe("/console/");

    const page = await browser.newPage();
    await page.goto(await consoleLinkFor(chat, "alice"));
    await page.waitForURL(/\/console\/$/);
    await waitForLive(page);
    expect(await page.locator('link[rel="manifest"]').getAttribute("href")).toBe(
      "/console/manifest.webmanifest",
    );
    const scope = await page.evaluate(async () => {
      const { navigator } = globalThis as unknown as PageGlobals;
      return (await navigator.serviceWorker.ready).scope;
    });
    expect(scope).toBe(`${url}/console/`);
    const cdp = await browser.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors).toEqual([]);

    // The shell is cached; the live data never is.
    await page.reload();
    await waitForLive(page);
    const cached = await page.evaluate(async () => {
      const cache = await (globalThis as unknown as PageGlobals).caches.open("phonework-shell-v1");
      return (await cache.keys()).map((request) => new URL(request.url).pathname).sort();
    });
    expect(cached).toContain("/console/assets/console.js");
    expect(cached).toContain("/console/");
    expect(cached.filter((path) => /\/console\/(ws|session|login)/.test(path))).toEqual([]);
  });
});
