import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { createHost, type Host, HostConfigSchema } from "@phonework/host";
import { builtCli, createTestLogger, placeholderConsolePage, repoRoot, waitFor } from "@phonework/testkit";
import axe from "axe-core";
import { type Browser, chromium, type Download, type Locator, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { createRouter, type Router } from "../src/create-router.ts";
import type { MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { createTerminalAdapter } from "../src/platforms/stdin/stdin-adapter.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium-options.ts";
import { onCleanup, SECRET, tempDataDir } from "./support.ts";

// The web console under test in a real browser: Debian's chromium driven by playwright-core, one
// for the whole run (browser-setup.ts). The page is the one the package ships, built once per run
// by the suite's global setup. Screenshots go to artifacts/console/ when CONSOLE_SCREENSHOTS=1 asks
// for them (each is a PNG encoded by the browser; a run that only checks the page skips that work).

export const CHROMIUM = CHROMIUM_PATH;
const ARTIFACTS = join(repoRoot, "artifacts", "console");
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 860 };

/** The page the package ships (built by the global setup, beside the built CLI); nothing to remove. */
export async function buildTestAssets(): Promise<{ dir: string; remove: () => void }> {
  const dir = join(dirname(builtCli), "console");
  if (!existsSync(join(dir, "console.js"))) throw new Error(`${dir} is missing: run pnpm build`);
  return { dir, remove: () => {} };
}

/** A download's bytes as text (the shared browser runs in another process: read through its stream). */
export async function downloadedText(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/** The run's shared Chromium (browser-setup.ts), or one of its own where no setup started it. */
export function launchChromium(): Promise<Browser> {
  const endpoint = inject("chromiumEndpoint");
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Asks for a login link in the chat, as the user would, and returns it. */
export async function consoleLinkFor(chat: MemoryChatAdapter, userId: string): Promise<string> {
  const before = chat.textsFor(userId).length;
  await chat.receive({ userId, text: "/console" });
  return waitFor(
    () => {
      for (const text of chat.textsFor(userId).slice(before)) {
        const link = /https?:\/\/\S+\/console\/login\?code=[\w-]+/.exec(text)?.[0];
        if (link) return link;
      }
      return undefined;
    },
    { message: `a console link for ${userId}` },
  );
}

/**
 * Opens the link in a fresh browser profile and waits for the console to be live; `touch` makes it
 * a phone's (a touch screen, mobile viewport rules). The profile is closed at the test's cleanup.
 */
export async function signIn(
  browser: Browser,
  link: string,
  viewport = DESKTOP,
  options: { touch?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport,
    ...(options.touch ? { isMobile: true, hasTouch: true } : {}),
  });
  onCleanup(() => context.close());
  const page = await context.newPage();
  await page.goto(link);
  await page.waitForURL(/\/console\/$/);
  await waitForLive(page);
  return page;
}

/** Sends a chat message from the page's box. */
export async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/** Whether the element is wholly inside the viewport as the page is scrolled now. */
export async function inViewport(locator: Locator, viewport: { width: number; height: number }) {
  const box = await locator.boundingBox();
  return (
    !!box &&
    box.y >= 0 &&
    box.x >= 0 &&
    box.y + box.height <= viewport.height &&
    box.x + box.width <= viewport.width
  );
}

/**
 * Taps the element as a thumb would: it must be in sight already (playwright would scroll to it;
 * a user who has to scroll first is what this checks against).
 */
export async function tapInSight(locator: Locator, viewport = PHONE): Promise<void> {
  await locator.waitFor();
  expect(await inViewport(locator, viewport), `${locator} in sight without scrolling`).toBe(true);
  await locator.tap();
}

export async function waitForLive(page: Page): Promise<void> {
  // A locator, not waitForFunction: the console's CSP refuses the eval that a string would need.
  await page.locator(".link.open").waitFor({ state: "attached" });
}

/**
 * Where the picture `name` goes in artifacts/console/, or undefined when this run takes none
 * (CONSOLE_SCREENSHOTS=1 asks for them: `CONSOLE_SCREENSHOTS=1 pnpm test console` redraws the
 * README's and docs' pictures).
 */
export function picturePath(name: string): string | undefined {
  if (process.env.CONSOLE_SCREENSHOTS !== "1") return undefined;
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, `${name}.png`);
}

/** The whole page, as artifacts/console/<name>.png (when pictures are asked for: picturePath). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const path = picturePath(name);
  if (path) await page.screenshot({ path, fullPage: true });
}

/**
 * A real host dialling out to the router (as from behind NAT), admitted by the test secret;
 * `env` is what its coding agents and terminals see.
 */
export function startConsoleHost(
  nodeUrl: string,
  overrides: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): Host {
  const config = HostConfigSchema.parse({
    ROUTER_URL: nodeUrl,
    ROUTER_SECRET: SECRET,
    DATA_DIR: tempDataDir(),
    RECONNECT_MAX_DELAY_S: 0.2,
    ...overrides,
  });
  const host = createHost(config, { logger: createTestLogger().logger, env });
  host.start();
  onCleanup(() => host.stop());
  return host;
}

/** Pids of the processes whose environment carries the mark. */
export function processesMarked(mark: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`CONSOLE_TEST_MARK=${mark}`))
        pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** The names of the processes whose environment carries the mark (their /proc comm). */
export function namesOf(pids: number[]): string[] {
  return pids.flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/comm`, "utf8").trim()];
    } catch {
      return [];
    }
  });
}

/** A placeholder page (three empty files) for tests of the console's server side, no build needed. */
export const fakeAssets = (): string => placeholderConsolePage(tempDataDir());

export interface TerminalChatRouter {
  router: Router;
  url: string;
  /** Types a line in the terminal chat. */
  type(line: string): void;
  /** The first match in what the chat printed after offset `from`. */
  printedMatch(match: RegExp, from?: number, timeoutMs?: number): Promise<RegExpExecArray>;
  /** How much the chat has printed so far (an offset for printedMatch). */
  printedLength(): number;
}

/** A router chatting on a terminal, as `pnpm standalone` does: what is typed goes in, what it prints comes out. */
export async function startTerminalChatRouter(consoleAssets: string): Promise<TerminalChatRouter> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const config = RouterConfigSchema.parse({
    ROUTER_SECRET: SECRET,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: tempDataDir(),
  });
  const router = createRouter(config, {
    logger: createTestLogger().logger,
    chat: [createTerminalAdapter({ input, output, filesDir: tempDataDir() })],
    consoleAssets,
  });
  const url = await router.start();
  onCleanup(() => router.close({ drainMs: 0 }));
  return {
    router,
    url,
    type: (line) => input.write(`${line}\n`),
    printedMatch: (match, from = 0, timeoutMs = 15_000) =>
      waitFor(() => match.exec(printed.slice(from)) ?? undefined, { message: `printed ${match}`, timeoutMs }),
    printedLength: () => printed.length,
  };
}

interface AxeWindow {
  axe: {
    run(
      context: unknown,
      options: unknown,
    ): Promise<{ violations: { id: string; impact?: string | null; nodes: { target: unknown[] }[] }[] }>;
  };
  document: unknown;
}

/** axe-core's serious and critical findings on the page as shown now (touch target sizes included). */
export async function seriousFindings(page: Page): Promise<string[]> {
  // Half a megabyte of script: put in the page once, run as often as the page changes.
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const w = globalThis as unknown as AxeWindow;
    const result = await w.axe.run(w.document, {
      rules: { "target-size": { enabled: true } },
      resultTypes: ["violations"],
    });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
}
