import { waitFor } from "@phonework/testkit";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telegramWorld } from "./support.ts";

// The web console the installed router serves (its page from the package's dist/console/), in a
// real browser: Debian's chromium, headless, driven by playwright-core. Signed in from the link
// `/console` answers in the chat, as a user does.

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
let browser: Browser;

beforeAll(async () => {
  // --no-sandbox: CI runs as root, where chromium's own sandbox refuses to start.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
});
afterAll(() => browser?.close());

describe("the web console, installed", () => {
  it("signs in from the chat's /console link, shows the node online, and chats with it", async () => {
    const { chat } = await telegramWorld();
    const answer = await chat.say("/console", /\/console\/login\?code=/);
    const link = /https?:\/\/\S+\/console\/login\?code=[\w-]+/.exec(answer.text ?? "")?.[0] ?? "";

    const page = await (await browser.newContext()).newPage();
    await page.goto(link);
    await page.waitForURL(/\/console\/$/);
    // Live: the page's scripts loaded and its socket to the router is open.
    await page.locator(".link.open").waitFor({ state: "attached" });
    const node = page.locator('[data-node="box"]');
    await waitFor(async () => /online/.test((await node.textContent()) ?? ""), { message: "box online" });

    await page.getByLabel("Message").fill("/shell echo from-the-console");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const reply = page.locator(".message:not(.mine)").filter({ hasText: "from-the-console" }).last();
    await reply.waitFor({ timeout: 30_000 });
    expect(await reply.textContent()).toContain("from-the-console");

    // Installable from the package as built: the page names its manifest, and the manifest, an
    // icon and the service worker are served with the types a browser installs from.
    expect(await page.locator('link[rel="manifest"]').getAttribute("href")).toContain("manifest.webmanifest");
    const origin = new URL(link).origin;
    for (const [path, type] of [
      ["/console/manifest.webmanifest", "application/manifest+json"],
      ["/console/icons/icon-192.png", "image/png"],
      ["/console/service-worker.js", "text/javascript"],
    ] as const) {
      const response = await page.request.get(`${origin}${path}`);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["content-type"], path).toContain(type);
    }
  });
});
