import { randomUUID } from "node:crypto";
import { CleanupScope, makeTempDir, waitFor } from "@phonework/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket } from "ws";
import {
  buildTestAssets,
  consoleLinkFor,
  DESKTOP,
  launchChromium,
  namesOf,
  PHONE,
  processesMarked,
  screenshot,
  signIn,
  startConsoleHost,
} from "./console-support.ts";
import { keepForFile, onCleanup, proxyTo, startTestRouter } from "./support.ts";

// Terminals from the web console: xterm.js in a real browser, node-pty on a real host that dials
// out to the router, every byte relayed by the router under the host's flow control. One world for
// the file (the router, the host, alice signed in on a desktop), built once; each test leaves no
// terminal open, and the one that cuts the host's link runs last.

const scope = new CleanupScope();
let browser: Browser;
let assets: { dir: string; remove: () => void };
let world: Awaited<ReturnType<typeof startWorld>>;
/** Alice's page on a desktop, signed in before the first test. */
let alice: Page;

beforeAll(async () => {
  try {
    [assets, browser] = await Promise.all([buildTestAssets(), launchChromium()]);
    world = await startWorld();
    alice = await signIn(browser, await consoleLinkFor(world.chat, "alice"), DESKTOP);
  } finally {
    keepForFile(scope);
  }
}, 60_000);

// A test that failed half-way leaves no terminal to the next: what it started is killed, and the
// router has let go of its terminals.
afterEach(async () => {
  const left = world?.started() ?? [];
  if (left.length === 0) return;
  for (const pid of left) process.kill(pid, "SIGKILL");
  await waitFor(() => world.started().length === 0 && world.router.console?.terminals.size === 0, {
    message: "the terminals a failed test left to end",
  });
});

afterAll(async () => {
  await browser?.close();
  await scope.run();
  assets?.remove();
});

/** A router and alice's node, home-pc, whose link runs through a proxy the test can cut. */
async function startWorld() {
  const t = await startTestRouter({}, { consoleAssets: assets.dir });
  const work = makeTempDir();
  onCleanup(work.remove);
  const link = await proxyTo(t.nodeUrl);
  const mark = randomUUID();
  const host = startConsoleHost(
    link.url,
    { NODE_ID: "home-pc", SERVES_USERS: "alice", WORKING_DIR: work.path },
    // A HOME of its own: the login shell starts without this machine's rc files (fast, and the same
    // everywhere). The mark finds what the terminal started, sandboxed or not (a sandbox's $$ is its own).
    // bash: Tab completes commands (the key bar's test).
    { ...process.env, HOME: work.path, CONSOLE_TEST_MARK: mark, SHELL: "/bin/bash" },
  );
  await host.ready();
  return { ...t, host, proxy: link.proxy, started: () => processesMarked(mark) };
}

/** The terminal's screen, one string per row. */
async function screenRows(page: Page): Promise<string[]> {
  return (await page.locator(".terminal .xterm-rows > div").allTextContents()).map((row) => row.trimEnd());
}

async function run(page: Page, command: string) {
  await page.locator(".terminal .xterm-screen").click();
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
}

/** The first row (after the ones already there) that matches. */
async function waitForRow(page: Page, match: RegExp, after = 0): Promise<string> {
  return waitFor(async () => (await screenRows(page)).slice(after).find((row) => match.test(row)), {
    message: `a terminal row matching ${match}`,
  });
}

describe("console terminals", () => {
  it("opens a terminal on the node, runs echo hi, resizes, and closes it with nothing left running", async () => {
    const { router, started } = world;
    const page = alice;
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Open terminal" }).click();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();

    await run(page, "echo hi");
    expect(await waitForRow(page, /^hi$/)).toBe("hi");

    await run(page, "stty size");
    const wide = await waitForRow(page, /^\d+ \d+$/);
    await page.setViewportSize(PHONE); // one column, a smaller screen: xterm refits, the PTY follows
    await run(page, "clear; stty size");
    const narrow = await waitFor(
      async () => (await screenRows(page)).find((row) => /^\d+ \d+$/.test(row) && row !== wide),
      { message: "the new size" },
    );
    const [rows = 0, cols = 0] = narrow.split(" ").map(Number);
    const [wideRows = 0, wideCols = 0] = wide.split(" ").map(Number);
    expect(cols).toBeLessThan(wideCols);
    expect(rows).toBeLessThanOrEqual(wideRows);
    await run(page, "echo hi from a phone");
    await waitForRow(page, /^hi from a phone$/);
    await screenshot(page, "terminal-phone");

    // A job in the background too: closing kills the whole tree.
    await run(page, "sleep 600 & echo job-$((20+1))");
    await waitForRow(page, /^job-21$/);
    expect(started().length).toBeGreaterThanOrEqual(2); // the shell and its job (and a sandbox's own)
    await page.getByRole("button", { name: "Close terminal" }).click();
    await page.locator(".terminal").waitFor({ state: "detached" });
    await waitFor(() => started().length === 0, { message: "every process of the terminal to be gone" });
    expect(router.console?.terminals.size).toBe(0);
    await page.setViewportSize(DESKTOP);
  });

  it("on a phone, the key bar's keys reach the shell: Tab completes, Up recalls, Ctrl-C stops top, sticky Ctrl sends ^C", async () => {
    const { chat, started } = world;
    const page = await signIn(browser, await consoleLinkFor(chat, "alice"), PHONE, { touch: true });
    await page.getByRole("tab", { name: "Nodes" }).tap(); // the phone opens on the chat
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Open terminal" }).tap();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    const bar = page.getByRole("toolbar", { name: "Terminal keys" });
    const key = (name: string) => bar.getByRole("button", { name, exact: true });
    // Every key a real button, named, and a touch target of at least 44 × 44 px.
    const names = await bar
      .getByRole("button")
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute("aria-label")));
    expect(names).toEqual(
      expect.arrayContaining(["Esc, escape", "Tab", "Control C", "Control D", "Up arrow", "PgDn, page down"]),
    );
    for (const box of await bar
      .getByRole("button")
      .evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect()))) {
      expect(box.width).toBeGreaterThanOrEqual(44);
      expect(box.height).toBeGreaterThanOrEqual(44);
    }

    await page.locator(".terminal .xterm-screen").tap();
    await page.keyboard.type("ech");
    await key("Tab").tap(); // bash completes the command: "echo "
    await page.keyboard.type("tab-$((2+3))");
    await page.keyboard.press("Enter");
    await waitForRow(page, /^tab-5$/);
    await key("Up arrow").tap(); // the last command back
    await page.keyboard.press("Enter");
    await waitFor(async () => (await screenRows(page)).filter((row) => row === "tab-5").length === 2, {
      message: "the recalled command's second tab-5",
    });

    await run(page, "top");
    await waitFor(() => namesOf(started()).includes("top"), { message: "top running" });
    await key("Control C").tap();
    await waitFor(() => !namesOf(started()).includes("top"), { message: "top stopped by the bar's Ctrl-C" });

    await run(page, "sleep 600");
    await waitFor(() => namesOf(started()).includes("sleep"), { message: "sleep running" });
    await key("Ctrl, for the next key").tap();
    await expect.poll(() => key("Ctrl, for the next key").getAttribute("aria-pressed")).toBe("true");
    await page.keyboard.type("c"); // held Ctrl: the letter goes as ^C, and Ctrl is released
    await waitFor(() => !namesOf(started()).includes("sleep"), { message: "sleep stopped by Ctrl, then c" });
    expect(await key("Ctrl, for the next key").getAttribute("aria-pressed")).toBe("false");

    // A+ twice: a bigger font, fewer columns, the PTY told so; remembered in this browser.
    await run(page, "clear; stty size");
    const before = await waitForRow(page, /^\d+ \d+$/);
    await page.getByRole("button", { name: "A+ larger text" }).tap();
    await page.getByRole("button", { name: "A+ larger text" }).tap();
    await run(page, "clear; stty size");
    const after = await waitFor(
      async () => (await screenRows(page)).find((row) => /^\d+ \d+$/.test(row) && row !== before),
      { message: "the size after A+" },
    );
    expect(Number(after.split(" ")[1])).toBeLessThan(Number(before.split(" ")[1]));
    expect(await page.evaluate(() => localStorage.getItem("phonework.terminal.fontSize"))).toBe("15");
    await screenshot(page, "terminal-key-bar");
    await page.getByRole("button", { name: "Close terminal" }).tap();
    await waitFor(() => started().length === 0, { message: "the shell gone" });
  }, 60_000); // a sign-in of its own, two programs started and stopped, two resizes

  it("a reload takes the terminal back: the same shell, with what it printed meanwhile", async () => {
    const { router, started } = world;
    const page = alice;
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Open terminal" }).click();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    await run(page, "echo shell-$$");
    const shell = await waitForRow(page, /^shell-\d+$/);
    const processes = started().sort();
    await run(page, "sleep 1; echo printed-$((6*7))");
    await page.reload();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    await waitForRow(page, /^printed-42$/);
    await run(page, "echo shell-$$");
    expect(
      await waitFor(
        async () => (await screenRows(page)).filter((row) => row === shell).length > 0 || undefined,
        {
          message: "the same shell",
        },
      ),
    ).toBe(true);
    expect(started().sort()).toEqual(processes);
    expect(router.console?.terminals.size).toBe(1);
    await page.getByRole("button", { name: "Close terminal" }).click();
    await waitFor(() => started().length === 0, { message: "the shell gone" });
  });

  it("a terminal printing 4 MB to a slow page keeps the relay within the host's window, and chat on the node still answers", async () => {
    const { chat, url, host, started } = world;
    const [cookie] = await alice.context().cookies();
    // A page that reads slowly, as a plain WebSocket: it acknowledges output in small steps.
    const socket = new NodeWebSocket(`${url.replace(/^http/, "ws")}/console/ws`, {
      headers: { cookie: `${cookie?.name}=${cookie?.value}`, origin: url },
    });
    onCleanup(() => socket.terminate());
    let id = "";
    let received = 0;
    let unacked = 0;
    let peak = 0;
    let exited = false;
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id?: string; bytes?: number };
      if (frame.type === "term_started") id = frame.id ?? "";
      if (frame.type === "term_exit") exited = true;
      if (frame.type !== "term_output") return;
      received += frame.bytes ?? 0;
      unacked += frame.bytes ?? 0;
      peak = Math.max(peak, unacked);
    });
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "term_open", ref: "flood", node: "home-pc", cols: 120, rows: 40 }));
    await waitFor(() => id || undefined, { message: "the terminal's id" });
    // 16 windows' worth: the window is filled, drained and refilled many times over (the rate is the bench's).
    const total = 4 * 1024 * 1024;
    // The shell prints a marker after the flood (computed, so the echoed command line is not it).
    let tail = "";
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { type: string; data?: string };
      if (frame.type === "term_output") tail = (tail + (frame.data ?? "")).slice(-200);
    });
    socket.send(
      JSON.stringify({
        type: "term_input",
        id,
        data: `head -c ${total} /dev/zero | tr '\\0' x; echo; echo flood-$((40+2))\r`,
      }),
    );
    // Not reading at all: the output stops at the window. It has stopped once the host paused the
    // PTY (nothing more is read from it) and the page has all the host read: nothing is left to send.
    await waitFor(
      () => {
        const terminals = host.terminals.manager.stats();
        return terminals.paused === 1 && received === terminals.bufferedBytes;
      },
      { message: "the output to stop at the window" },
    );
    const stalled = received;
    expect(stalled).toBeLessThanOrEqual(256 * 1024); // the host's TERMINAL_BUFFER_BYTES (its default)
    // The same node still answers chat while its terminal is blocked.
    const asked = chat.textsFor("alice").length;
    await chat.receive({ userId: "alice", text: "@home-pc /reminders" });
    await waitFor(
      () =>
        chat
          .textsFor("alice")
          .slice(asked)
          .find((text) => /reminders|scheduled/i.test(text)),
      {
        message: "a chat answer from the node",
      },
    );
    expect(received).toBe(stalled);
    // Reading again, in small steps: everything comes through, never more than the window ahead.
    const reader = setInterval(() => {
      if (unacked === 0) return;
      const bytes = Math.min(unacked, 64 * 1024);
      unacked -= bytes;
      socket.send(JSON.stringify({ type: "term_ack", id, bytes }));
    }, 1);
    onCleanup(() => clearInterval(reader));
    await waitFor(() => tail.includes("flood-42"), { message: "the end of the flood", timeoutMs: 120_000 });
    clearInterval(reader);
    expect(exited).toBe(false);
    expect(received).toBeGreaterThanOrEqual(total);
    expect(peak).toBeLessThanOrEqual(256 * 1024);
    socket.send(JSON.stringify({ type: "term_close", id })); // nothing left running for the next test
    await waitFor(() => started().length === 0, { message: "the flooding shell gone" });
  }, 180_000);

  it("says so in the page when the node goes offline (its link cut), and the shell is gone", async () => {
    const { router, proxy, started } = world;
    const page = alice;
    await page.locator('[data-node="home-pc"]').getByRole("button", { name: "Open terminal" }).click();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    await waitFor(() => started().length > 0, { message: "the shell" });
    proxy.dropAll(); // lost Wi-Fi: the host reconnects, the terminal does not come back
    await page.locator(".terminal-status", { hasText: "home-pc went offline" }).waitFor();
    expect(router.console?.terminals.size).toBe(0);
    await waitFor(() => started().length === 0, {
      message: "the host to close the terminal whose link dropped",
    });
  });
});
