import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeResponses,
  killProcesses,
  makeTempDir,
  repoRoot,
  startFakeResponses,
  type TempDir,
  waitFor,
} from "@phonework/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestAssets,
  launchChromium,
  PHONE,
  screenshot,
  signIn,
  startConsoleHost,
  startTerminalChatRouter,
} from "./console-support.ts";
import { onCleanup, proxyTo } from "./support.ts";

// Issue 19's "done when", in one run: on a phone, the user opens the console from a link their chat
// gave them (the terminal chat's /console), sees their machine and the coding session they started
// from that chat, answers the approval the session asked there, and types into a terminal on the
// host — which dials out to the router through a proxy, as from behind NAT. Real router, real host,
// the real `codex app-server` against a fake Responses API, Debian's chromium.

const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

let browser: Browser;
let assets: { dir: string; remove: () => void };
let codex: FakeResponses;

beforeAll(async () => {
  [assets, browser, codex] = await Promise.all([buildTestAssets(), launchChromium(), startFakeResponses()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await codex?.close();
  assets?.remove();
});

async function startWorld() {
  const chat = await startTerminalChatRouter(assets.dir);
  const dir = makeTempDir();
  for (const sub of ["projects/demo", "home", "codex-home", "tmp"])
    mkdirSync(join(dir.path, sub), { recursive: true });
  writeFileSync(join(dir.path, "codex-home", "config.toml"), codex.codexConfig());
  onCleanup(() => cleanUp(dir));
  const nat = await proxyTo(chat.router.nodeUrl);
  const host = startConsoleHost(
    nat.url,
    {
      NODE_ID: "home-pc",
      SERVES_USERS: "terminal:local",
      WORKING_DIR: join(dir.path, "projects"),
      CODEX_BIN,
      CODEX_APPROVAL_POLICY: "untrusted",
      CODEX_SANDBOX: "danger-full-access",
      STOP_GRACE_S: 2,
    },
    {
      ...process.env,
      HOME: join(dir.path, "home"),
      CODEX_HOME: join(dir.path, "codex-home"),
      // Codex's own sandbox refuses a CODEX_HOME under the temp dir it uses.
      TMPDIR: join(dir.path, "tmp"),
      OPENAI_API_KEY: "sk-test",
    },
  );
  await host.ready();
  return { ...chat, dir };
}

async function cleanUp(dir: TempDir) {
  killProcesses((_cmdline, environ) => environ.includes(join(dir.path, "codex-home")));
  await dir.removeWhenQuiet();
}

async function typeInTerminal(page: Page, command: string) {
  await page.locator(".terminal .xterm-screen").click();
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
}

describe("the console, end to end", () => {
  it("from a chat link on a phone: machines, the session, its approval, a terminal on a host behind NAT", async () => {
    const { url, dir, type, printedMatch, printedLength } = await startWorld();
    // In the chat: a Codex session that will ask to run a command.
    codex.script({ call: { name: "exec_command", arguments: { cmd: "touch approved.txt" } } }, (request) => ({
      text: `done: ${codex.toolOutputs(request).at(-1) ?? ""}`,
    }));
    type("/new demo codex create the file");
    await printedMatch(/asks to run: .*touch approved\.txt/, 0, 60_000);

    // The link the chat answers /console with, opened on a phone.
    const before = printedLength();
    type("/console");
    const [link] = await printedMatch(/https?:\/\/\S+\/console\/login\?code=[\w-]+/, before);
    expect(link.startsWith(url)).toBe(true);
    const page = await signIn(browser, link, PHONE);
    const node = page.locator('[data-node="home-pc"]');
    await expect.poll(() => node.textContent()).toMatch(/online.*1 coding session, 1 working/s);
    const session = page.locator(".work-session").filter({ hasText: "codex in demo" });
    await expect.poll(() => session.textContent()).toMatch(/working/);

    // The approval asked in the chat app is here too (the phone's Work tab), and answered here.
    await page.getByRole("tab", { name: /^Work/ }).click();
    const approval = page.locator(".approval").filter({ hasText: "touch approved.txt" });
    await approval.waitFor();
    expect(await approval.textContent()).toMatch(/home-pc · asked .* in terminal:terminal · declined in/);
    await screenshot(page, "journey-approval-phone");
    await approval.getByRole("button", { name: "Approve" }).click();
    await approval.waitFor({ state: "detached" });
    await printedMatch(/done:/, before, 60_000); // Codex's answer, in the chat it was asked from
    expect(existsSync(join(dir.path, "projects", "demo", "approved.txt"))).toBe(true);
    // The session's turn, with its answer, in its recent turns.
    await expect.poll(() => session.textContent(), { timeout: 10_000 }).toMatch(/idle/);
    await session.getByText(/Recent turns/).click();
    expect(await session.locator(".turns li").last().textContent()).toMatch(/create the file.*done:/s);

    // A terminal on the host behind the proxy, opened from the Nodes tab.
    await page.getByRole("tab", { name: "Nodes" }).click();
    await node.getByRole("button", { name: "Open terminal" }).click();
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    await typeInTerminal(page, "echo hi");
    await waitFor(
      async () =>
        (await page.locator(".terminal .xterm-rows > div").allTextContents()).find(
          (row) => row.trimEnd() === "hi",
        ),
      { message: "hi on the terminal" },
    );
    await screenshot(page, "journey-terminal-phone");
  });
});
