import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
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
import {
  buildTestAssets,
  launchChromium,
  namesOf,
  PHONE,
  processesMarked,
  screenshot,
  signIn,
  startConsoleHost,
  startTerminalChatRouter,
  tapInSight,
} from "./console-support.ts";
import { onCleanup, proxyTo } from "./support.ts";

// The console's "done when", in one run on a phone (390 × 844, a touch screen): the user opens the
// console from the link their chat gave them (the terminal chat's /console), sends a message and
// reads the answer, answers the approval a coding session asked in the chat, and stops `top` in a
// terminal with the key bar's ^C — every control tapped, each in sight when tapped (no scrolling),
// no hardware keyboard for the control keys. Real router, real host dialling out through a proxy
// (as from behind NAT), the real `codex app-server` against a fake Responses API, a fake OpenAI
// model for the assistant, Debian's chromium.

const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

let browser: Browser;
let assets: { dir: string; remove: () => void };
let codex: FakeResponses;
let assistant: FakeOpenAI;

beforeAll(async () => {
  [assets, browser, codex, assistant] = await Promise.all([
    buildTestAssets(),
    launchChromium(),
    startFakeResponses(),
    startFakeOpenAI(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await codex?.close();
  await assistant?.close();
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
  const mark = randomUUID();
  const host = startConsoleHost(
    nat.url,
    {
      NODE_ID: "home-pc",
      SERVES_USERS: "terminal:local",
      WORKING_DIR: join(dir.path, "projects"),
      OPENAI_BASE_URL: assistant.url,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MODEL: "fake",
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
      // Finds what the terminal started (sandboxed or not).
      CONSOLE_TEST_MARK: mark,
    },
  );
  await host.ready();
  return { ...chat, dir, started: () => namesOf(processesMarked(mark)) };
}

async function cleanUp(dir: TempDir) {
  killProcesses((_cmdline, environ) => environ.includes(join(dir.path, "codex-home")));
  await dir.removeWhenQuiet();
}

/** The terminal's screen, one string per row. */
async function screenRows(page: Page): Promise<string[]> {
  return (await page.locator(".terminal .xterm-rows > div").allTextContents()).map((row) => row.trimEnd());
}

/** Types a command as the phone's keyboard does (letters and its Enter key). */
async function typeInTerminal(page: Page, command: string) {
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
}

const tab = (page: Page, name: string) =>
  page.getByRole("tablist").getByRole("tab", { name: new RegExp(`^${name}`) });

describe("the console, end to end", () => {
  it("on a phone, by taps alone: sign in from the chat's link, a message answered, the session's approval, ^C stops top on a host behind NAT", async () => {
    const { url, dir, type, printedMatch, printedLength, started } = await startWorld();
    // The link the chat answers /console with, opened on a phone.
    type("/console");
    const [link] = await printedMatch(/https?:\/\/\S+\/console\/login\?code=[\w-]+/);
    expect(link.startsWith(url)).toBe(true);
    const page = await signIn(browser, link, PHONE, { touch: true });

    // It opens on the chat: a message, tapped off, and the node's answer.
    expect(await tab(page, "Chat").getAttribute("aria-selected")).toBe("true");
    assistant.script({ text: "All quiet on home-pc." });
    await tapInSight(page.getByLabel("Message"));
    await page.getByLabel("Message").fill("anything new?");
    await tapInSight(page.getByRole("button", { name: "Send", exact: true }));
    await page.locator(".message:not(.mine)").filter({ hasText: "All quiet on home-pc." }).waitFor();
    expect(assistant.lastUserText()).toContain("anything new?");

    // Meanwhile, in the chat app: a Codex session that asks to run a command. The page shows it.
    codex.script({ call: { name: "exec_command", arguments: { cmd: "touch approved.txt" } } }, (request) => ({
      text: `done: ${codex.toolOutputs(request).at(-1) ?? ""}`,
    }));
    const before = printedLength();
    type("/new demo codex create the file");
    await printedMatch(/asks to run: .*touch approved\.txt/, before, 60_000);
    const node = page.locator('[data-node="home-pc"]');
    await expect.poll(() => node.textContent()).toMatch(/online.*1 coding session, 1 working/s);
    const session = page.locator(".work-session").filter({ hasText: "codex in demo" });
    await expect.poll(() => session.textContent()).toMatch(/working/);

    // The approval asked in the chat app is here too (the Work tab), and answered here.
    await tapInSight(tab(page, "Work"));
    const approval = page.locator(".approval").filter({ hasText: "touch approved.txt" });
    await approval.waitFor();
    expect(await approval.textContent()).toMatch(/home-pc · asked .* in terminal:terminal · declined in/);
    await screenshot(page, "journey-approval-phone");
    await tapInSight(approval.getByRole("button", { name: "Approve" }));
    await approval.waitFor({ state: "detached" });
    await printedMatch(/done:/, before, 60_000); // Codex's answer, in the chat it was asked from
    expect(existsSync(join(dir.path, "projects", "demo", "approved.txt"))).toBe(true); // run on the host
    // The session's turn, with its answer, in its recent turns.
    await expect.poll(() => session.textContent(), { timeout: 10_000 }).toMatch(/idle/);
    await session.getByText(/Recent turns/).tap();
    expect(await session.locator(".turns li").last().textContent()).toMatch(/create the file.*done:/s);

    // A terminal on the host behind the proxy, opened from the Nodes tab; top, stopped by ^C.
    await tapInSight(tab(page, "Nodes"));
    await tapInSight(node.getByRole("button", { name: "Open terminal" }));
    await page.locator(".terminal-status", { hasText: "open" }).waitFor();
    await tapInSight(page.locator(".terminal .xterm-screen"));
    await typeInTerminal(page, "top");
    await waitFor(() => started().includes("top"), { message: "top running" });
    await waitFor(async () => (await screenRows(page)).some((row) => row.startsWith("top - ")), {
      message: "top's screen",
    });
    await screenshot(page, "journey-terminal-phone");
    const bar = page.getByRole("toolbar", { name: "Terminal keys" });
    await tapInSight(bar.getByRole("button", { name: "Control C", exact: true }));
    await waitFor(() => !started().includes("top"), { message: "top stopped by the key bar's ^C" });
    // The shell is back at its prompt: it runs the next command.
    await typeInTerminal(page, "echo back-$((40+2))");
    await waitFor(async () => (await screenRows(page)).includes("back-42"), {
      message: "the shell's answer",
    });
  }, 90_000); // a Codex session and a terminal on a phone: ~10 s alone, far more on a busy machine
});
