import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  CleanupScope,
  createManualClock,
  type FakeOpenAI,
  type FakeResponses,
  killProcesses,
  makeTempDir,
  repoRoot,
  startFakeOpenAI,
  startFakeResponses,
  type TempDir,
  waitFor,
} from "@phonework/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket } from "ws";
import {
  buildTestAssets,
  consoleLinkFor,
  DESKTOP,
  downloadedText,
  inViewport,
  launchChromium,
  PHONE,
  picturePath,
  say,
  screenshot,
  seriousFindings,
  signIn,
  startConsoleHost,
} from "./console-support.ts";
import { keepForFile, onCleanup, startTestRouter } from "./support.ts";

// The web console in a real browser (Debian's chromium, headless): a real router, real hosts that
// dial out to it (as from behind NAT), the real `codex app-server` offline against a fake Responses
// API, and a fake OpenAI server for the assistant. One world for the file (the router, the hosts,
// alice signed in on a phone), built once: each test uses alice's page, or signs in a user of its
// own (bob, carol) where sign-ins are what it tests. Tests run in order and leave alice's page as
// they found it (the chat tab, no terminal open).

const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

const scope = new CleanupScope();
let browser: Browser;
let assets: { dir: string; remove: () => void };
let assistant: FakeOpenAI;
let codex: FakeResponses;
let world: Awaited<ReturnType<typeof startWorld>>;
/** Alice, signed in on a phone from her /console link before the first test. */
let alice: Page;

beforeAll(async () => {
  try {
    [assets, browser, assistant, codex] = await Promise.all([
      buildTestAssets(),
      launchChromium(),
      startFakeOpenAI(),
      startFakeResponses(),
    ]);
    world = await startWorld();
    alice = await signIn(browser, await consoleLinkFor(world.chat, "alice"), PHONE);
  } finally {
    keepForFile(scope);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await scope.run();
  await assistant?.close();
  await codex?.close();
  assets?.remove();
});

/** A router (alice its admin) with alice's node (home-pc, the assistant and Codex) and bob's (work-pc). */
async function startWorld() {
  const t = await startTestRouter({ ADMINS: "alice" }, { consoleAssets: assets.dir });
  const dir = makeTempDir();
  for (const sub of ["projects/demo", "home", "codex-home"])
    mkdirSync(join(dir.path, sub), { recursive: true });
  writeFileSync(join(dir.path, "codex-home", "config.toml"), codex.codexConfig());
  onCleanup(() => cleanUpCodex(dir));
  const env = {
    ...process.env,
    HOME: join(dir.path, "home"),
    CODEX_HOME: join(dir.path, "codex-home"),
    OPENAI_API_KEY: "sk-test",
  };
  const homePc = startConsoleHost(
    t.nodeUrl,
    {
      NODE_ID: "home-pc",
      SERVES_USERS: "alice",
      WORKING_DIR: join(dir.path, "projects"),
      OPENAI_BASE_URL: assistant.url,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "fake",
      CODEX_BIN,
      CODEX_APPROVAL_POLICY: "untrusted",
      CODEX_SANDBOX: "danger-full-access",
      STOP_GRACE_S: 2,
    },
    env,
  );
  const workPc = startConsoleHost(t.nodeUrl, {
    NODE_ID: "work-pc",
    SERVES_USERS: "bob",
    WORKING_DIR: dir.path,
  });
  await Promise.all([homePc.ready(), workPc.ready()]);
  return { ...t, dir };
}

async function cleanUpCodex(dir: TempDir) {
  killProcesses((_cmdline, environ) => environ.includes(join(dir.path, "codex-home")));
  await dir.removeWhenQuiet();
}

/** The HTTP status a WebSocket handshake gets (101 when it opens). */
function handshake(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new NodeWebSocket(url, { headers });
    socket.on("open", () => {
      socket.close();
      resolve(101);
    });
    socket.on("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("error", reject);
  });
}

/** What the checks read of the page's window (this file is compiled without the DOM's types). */
interface PageWindow {
  getComputedStyle(element: unknown): { whiteSpace: string; overflowX: string; fontFamily: string };
  document: { documentElement: { scrollWidth: number } };
}

/** The desktop size the layout checks use. */
const WIDE = { width: 1280, height: 900 };

/** What the user sees (the viewport, not the whole page): the layout's pictures in artifacts/console/. */
async function viewShot(page: Page, name: string) {
  const path = picturePath(name);
  if (path) await page.screenshot({ path });
}

/**
 * One view as the desktop shows it, beside the others: the area its panels take (a pane has no box
 * of its own on a wide screen), in artifacts/console/layout-desktop-<view>.png.
 */
async function paneShot(page: Page, view: string) {
  const path = picturePath(`layout-desktop-${view}`);
  if (!path) return;
  const clip = await page.evaluate((selector) => {
    type Box = { left: number; top: number; right: number; bottom: number };
    type Element = { children: ArrayLike<{ getBoundingClientRect(): Box }> };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<Element> } })
      .document;
    // In the page's coordinates (the shot is of the whole page: a tall side column runs below the window).
    const { scrollX, scrollY } = globalThis as unknown as { scrollX: number; scrollY: number };
    const boxes = Array.from(doc.querySelectorAll(selector)).flatMap((pane) =>
      Array.from(pane.children).map((child) => child.getBoundingClientRect()),
    );
    const x = Math.min(...boxes.map((box) => box.left)) + scrollX;
    const y = Math.min(...boxes.map((box) => box.top)) + scrollY;
    return {
      x,
      y,
      width: Math.max(...boxes.map((box) => box.right)) + scrollX - x,
      height: Math.max(...boxes.map((box) => box.bottom)) + scrollY - y,
    };
  }, `.pane-${view}`);
  await page.screenshot({ path, clip, fullPage: true });
}

const message = (page: Page, text: string | RegExp) =>
  page.locator(".message:not(.mine)").filter({ hasText: text }).last();

/** The tabs of the phone's bottom bar. */
const tabOf = (page: Page, name: string) =>
  page.getByRole("tablist").getByRole("tab", { name: new RegExp(`^${name}`) });

describe("web console in a browser", () => {
  it("signs in from a /console link and opens on the chat with its box in sight; shows the user's nodes, chats with the node and gets its files", async () => {
    const { dir } = world;
    const page = alice;
    expect(page.url()).toMatch(/\/console\/$/); // the code is gone from the address
    // A phone opens on the chat, every view a tab away (alice is an admin: a fifth tab), the box to
    // write in in sight.
    expect(await tabOf(page, "Chat").getAttribute("aria-selected")).toBe("true");
    await page.getByRole("tab", { name: /^Admin/ }).waitFor();
    expect(await page.getByRole("tab").allTextContents()).toEqual([
      "Chat",
      "Nodes",
      "Work",
      "Terminal",
      "Admin",
    ]);
    expect(await inViewport(page.locator(".composer"), PHONE)).toBe(true);

    const node = page.locator('[data-node="home-pc"]');
    await expect.poll(() => node.textContent()).toMatch(/online/);
    expect(await node.textContent()).toMatch(/terminal/); // a capability: "Open terminal" is offered
    await page.getByRole("tab", { name: "Nodes" }).click();
    await node.getByRole("button", { name: "Open terminal" }).waitFor();
    await screenshot(page, "nodes-phone");
    await page.getByRole("tab", { name: "Chat" }).click();

    assistant.script({ text: "Hello from your node." });
    await say(page, "hello there");
    await message(page, "Hello from your node.").waitFor();
    expect(assistant.lastUserText()).toContain("hello there");
    await screenshot(page, "chat-phone");

    // A file the node sends arrives in the page, to download.
    writeFileSync(join(dir.path, "projects", "report.txt"), "all green\n");
    assistant.script(
      { toolCalls: [{ name: "file_ops", arguments: { action: "send", path: "report.txt" } }] },
      {
        text: "Sent you the report.",
      },
    );
    await say(page, "send me the report");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: /Download report\.txt/ }).click(),
    ]);
    expect(await downloadedText(download)).toBe("all green\n");
    await page.setViewportSize(DESKTOP);
    await screenshot(page, "console-desktop");
    await page.setViewportSize(PHONE);
  });

  it("on a phone: output in a sideways-scrolling <pre>, the box always in sight, every view a tab away; side by side on a desktop", async () => {
    const page = alice;
    const tab = (name: string) => tabOf(page, name);
    await say(page, "/shell printf 'name  size\\nab    12\\n'; printf '%0300d\\n' 7");
    const output = message(page, /exit code 0/).locator("pre");
    await output.waitFor();
    expect(await output.textContent()).toBe(`name  size\nab    12\n${"0".repeat(299)}7`);
    // The command line stays prose above the block.
    expect(
      await message(page, /exit code 0/)
        .locator(".text > div")
        .first()
        .textContent(),
    ).toMatch(/^\$ printf/);
    const style = await output.evaluate((pre) => {
      const css = (globalThis as unknown as PageWindow).getComputedStyle(pre);
      return {
        whiteSpace: css.whiteSpace,
        overflowX: css.overflowX,
        mono: css.fontFamily.includes("monospace"),
      };
    });
    expect(style).toEqual({ whiteSpace: "pre", overflowX: "auto", mono: true });
    // The long line scrolls inside the block; the page itself does not get wider than the phone.
    const widths = await output.evaluate((pre) => ({
      scroll: pre.scrollWidth,
      client: pre.clientWidth,
      page: (globalThis as unknown as PageWindow).document.documentElement.scrollWidth,
    }));
    expect(widths.scroll).toBeGreaterThan(widths.client);
    expect(widths.page).toBeLessThanOrEqual(PHONE.width);
    await viewShot(page, "layout-phone-chat");
    // The box to write in stays in sight, above the tab bar, however long the chat.
    await say(page, "/shell seq 1 120");
    await message(page, /\$ seq 1 120/).waitFor();
    expect(await inViewport(page.locator(".composer"), PHONE)).toBe(true);
    expect(await seriousFindings(page)).toEqual([]);

    // Each view one tap away, and only that view shown.
    const views: [string, string][] = [
      ["Nodes", ".nodes"],
      ["Work", ".work-sessions"],
      ["Terminal", ".pane-terminal .empty"],
      ["Admin", ".admin"],
    ];
    for (const [name, shows] of views) {
      await tab(name).click();
      expect(await tab(name).getAttribute("aria-selected")).toBe("true");
      await page.locator(shows).waitFor();
      expect(await page.locator(".chat").isVisible()).toBe(false);
      expect(await seriousFindings(page)).toEqual([]);
      await viewShot(page, `layout-phone-${name.toLowerCase()}`);
    }
    // A terminal opened from Nodes is shown at once in its tab; "Chat here" goes back to the chat.
    await tab("Nodes").click();
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Open terminal" }).click();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    expect(await tab("Terminal").getAttribute("aria-selected")).toBe("true");
    expect(await seriousFindings(page)).toEqual([]);
    await viewShot(page, "layout-phone-terminal-open");
    await tab("Nodes").click();
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Chat here" }).click();
    expect(await page.getByLabel("Send to").inputValue()).toBe("home-pc");
    expect(await inViewport(page.locator(".composer"), PHONE)).toBe(true);

    // On its side the phone keeps the tabs, and the box stays in sight.
    const landscape = { width: PHONE.height, height: PHONE.width };
    await page.setViewportSize(landscape);
    expect(await inViewport(page.locator(".composer"), landscape)).toBe(true);

    // A desktop: no tabs, the nodes and the work beside the terminal and the chat.
    await page.setViewportSize(WIDE);
    expect(await page.getByRole("tablist").isVisible()).toBe(false);
    const side = await page.locator(".side").boundingBox();
    const main = await page.locator(".main").boundingBox();
    expect(side && main && main.x >= side.x + side.width && main.y < side.y + side.height).toBe(true);
    for (const shown of [".nodes", ".work-sessions", ".admin", "section.terminal", ".chat"])
      expect(await page.locator(shown).isVisible()).toBe(true);
    expect(await seriousFindings(page)).toEqual([]);
    await viewShot(page, "layout-desktop");
    // Each view as the desktop shows it, beside the others.
    for (const view of ["chat", "nodes", "work", "terminal", "admin"]) await paneShot(page, view);

    // Left as the next test finds a phone: the terminal closed, the chat shown.
    await page.getByRole("button", { name: "Close terminal" }).click();
    await page.locator(".terminal").waitFor({ state: "detached" });
    await page.setViewportSize(PHONE);
  }, 60_000); // seven axe-core runs and a terminal: ~15 s alone, more on a busy machine

  it("an approval from a real Codex session is answered with its Approve button", async () => {
    const { dir } = world;
    const page = alice;
    await page.setViewportSize(DESKTOP);
    codex.script({ call: { name: "exec_command", arguments: { cmd: "touch approved.txt" } } }, (request) => ({
      text: `done: ${codex.toolOutputs(request).at(-1) ?? ""}`,
    }));
    await say(page, "/new demo codex create the file");
    const ask = message(page, /Codex in demo asks to run: .*touch approved\.txt/);
    await ask.waitFor({ timeout: 60_000 });
    await screenshot(page, "approval");
    await ask.getByRole("button", { name: "Approve" }).click();
    await page.locator(".toast").filter({ hasText: "Approve" }).waitFor();
    await message(page, /^✅ Approved [0-9a-f]{4}\.$/).waitFor();
    await message(page, /^done:/).waitFor({ timeout: 60_000 });
    expect(readFileSync(join(dir.path, "projects", "demo", "approved.txt"), "utf8")).toBe("");
    // The row answers once: a second press is told so.
    await ask.getByRole("button", { name: "Deny" }).click();
    await page.locator(".toast").filter({ hasText: "Already answered" }).waitFor();
  });

  it("lists reminders through the panel shortcut and cancels one with its button", async () => {
    const page = alice;
    await page.setViewportSize(DESKTOP);
    await say(page, "/remind 2h stretch your legs");
    await message(page, /Scheduled #\d+/).waitFor();
    await page.getByRole("button", { name: "/reminders", exact: true }).click();
    const list = message(page, /stretch your legs/).filter({
      has: page.getByRole("button", { name: /^Cancel #/ }),
    });
    await list.waitFor();
    await screenshot(page, "reminders");
    await list.getByRole("button", { name: /^Cancel #/ }).click();
    await message(page, /Cancelled #\d+/).waitFor();
    await page.getByRole("button", { name: "/reminders", exact: true }).click();
    await message(page, /no (pending )?reminders|nothing scheduled/i).waitFor();
    await page.setViewportSize(PHONE);
  });

  it("a second user sees only their own nodes, and cannot open a terminal on the first user's", async () => {
    const { chat, url } = world;
    const bob = await signIn(browser, await consoleLinkFor(chat, "bob"));
    await bob.locator('[data-node="work-pc"]').waitFor();
    expect(await bob.locator("[data-node]").count()).toBe(1);
    expect(await bob.locator(".nodes").textContent()).not.toContain("home-pc");
    // Even asked by hand on bob's own socket, home-pc is no node of his.
    const refused = await bob.evaluate(
      (target) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(target);
          socket.onopen = () =>
            socket.send(JSON.stringify({ type: "term_open", ref: "x", node: "home-pc", cols: 80, rows: 24 }));
          socket.onmessage = (event) => {
            const frame = JSON.parse(event.data as string) as { type: string; message?: string };
            if (frame.type === "term_failed") resolve(frame.message ?? "");
          };
        }),
      `${url.replace(/^http/, "ws")}/console/ws`,
    );
    expect(refused).toBe("no such node");
  });

  it("refuses a link used before and a link past its time", async () => {
    // A router of its own, on a clock the test moves; no hosts: sign-in is the router's alone.
    const clock = createManualClock();
    const { chat, config } = await startTestRouter({}, { consoleAssets: assets.dir, clock });
    const link = await consoleLinkFor(chat, "alice");
    const page = await signIn(browser, link);
    // The same profile with its cookie gone (a private window, another phone) tries the link again.
    await page.context().clearCookies();
    await page.goto(link);
    await page.getByRole("heading", { name: "Link not valid" }).waitFor();
    await screenshot(page, "link-refused");
    expect(await page.locator("body").textContent()).toContain("used already, or it expired");

    const late = await consoleLinkFor(chat, "alice");
    clock.advance(config.CONSOLE_LINK_TTL_S * 1000 + 1);
    await page.goto(late);
    await page.getByRole("heading", { name: "Link not valid" }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
  });

  it("a WebSocket from another origin is refused, even with the user's cookie", async () => {
    const { url } = world;
    // A tab of alice's own browser (her cookie in it), taken to another site.
    const page = await alice.context().newPage();
    onCleanup(() => page.close());
    // A page on another port of the same host: another origin, but the same site, so the browser
    // sends the console's SameSite cookie along. Only the Origin check stands in the way.
    const evil = createServer((_request, response) => {
      response.setHeader("content-type", "text/html");
      response.end("<!doctype html><title>other</title>");
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    onCleanup(() => new Promise<void>((resolve) => evil.close(() => resolve())));
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    const outcome = await page.evaluate(
      (target) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(target);
          socket.onmessage = () => resolve("got a frame");
          socket.onclose = (event) => resolve(`closed ${event.code}`);
        }),
      `${url.replace(/^http/, "ws")}/console/ws`,
    );
    expect(outcome).toBe("closed 1006"); // refused at the handshake
    // What the handshake was refused with: the cookie is good, the origin is not.
    const [cookie] = await page.context().cookies();
    const headers = { cookie: `${cookie?.name}=${cookie?.value}` };
    const wsUrl = `${url.replace(/^http/, "ws")}/console/ws`;
    expect(await handshake(wsUrl, { ...headers, origin: "http://127.0.0.1:1" })).toBe(403);
    expect(await handshake(wsUrl, { ...headers, origin: url })).toBe(101);
    expect(await handshake(wsUrl, { origin: url })).toBe(401);
  });

  it("/console logout-all ends every sign-in of the user at once", async () => {
    // carol: her sign-ins end, alice's page (another user) stays.
    const { chat } = world;
    const first = await signIn(browser, await consoleLinkFor(chat, "carol"));
    const second = await signIn(browser, await consoleLinkFor(chat, "carol"), PHONE);
    await chat.receive({ userId: "carol", text: "/console logout-all" });
    await waitFor(
      () => chat.textsFor("carol").find((text) => text.includes("Signed out of the console everywhere (2")),
      {
        message: "the logout-all answer",
      },
    );
    for (const page of [first, second]) await page.getByRole("heading", { name: "Signed out" }).waitFor();
    await screenshot(second, "signed-out");
    await first.reload();
    await first.getByRole("heading", { name: "Signed out" }).waitFor();
    expect(await first.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect(await alice.locator(".link.open").count()).toBe(1);
  });
});
