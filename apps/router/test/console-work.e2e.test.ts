import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Overview } from "@phonework/protocol";
import { CleanupScope, connectFakeNode, type FakeNode, repoRoot, waitFor } from "@phonework/testkit";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestAssets,
  consoleLinkFor,
  DESKTOP,
  downloadedText,
  launchChromium,
  PHONE,
  say,
  screenshot,
  signIn,
  waitForLive,
} from "./console-support.ts";
import { keepForFile, memoryId, onCleanup, SECRET, startTestRouter } from "./support.ts";

// The console's views of a user's work (approvals, sessions, tasks, plans, schedule), the admin
// view and the files hosts send, in a real browser. The host here speaks the wire by hand, so the
// page is shown exactly the overview and files the test writes (the protocol's own sample); what a
// real host reports is covered by the host's tests and the end-to-end console test. One world for
// the file (the router, the node, alice signed in on a desktop), built once; tests run in order.

const aliceId = memoryId("alice");
const sample = JSON.parse(
  readFileSync(join(repoRoot, "packages/protocol/fixtures/v3/overview.json"), "utf8"),
) as { overview: Overview };

const scope = new CleanupScope();
let browser: Browser;
let assets: { dir: string; remove: () => void };
let world: Awaited<ReturnType<typeof startTestRouter>> & { node: FakeNode };
/** Alice's page on a desktop, signed in before the first test. */
let alice: Page;

beforeAll(async () => {
  try {
    [assets, browser] = await Promise.all([buildTestAssets(), launchChromium()]);
    const t = await startTestRouter({ ADMINS: "alice" }, { consoleAssets: assets.dir });
    world = { ...t, node: await connectNode(t.nodeUrl) };
    alice = await signIn(browser, await consoleLinkFor(world.chat, "alice"), DESKTOP);
  } finally {
    keepForFile(scope);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await scope.run();
  assets?.remove();
});

/** Home PC, alice's and bob's, speaking the wire by hand; closed by `cleanup`. */
async function connectNode(nodeUrl: string, cleanup = onCleanup): Promise<FakeNode> {
  const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
  cleanup(() => node.close());
  await node.register({
    node_id: "home-pc",
    display_name: "Home PC",
    serves_users: [aliceId, memoryId("bob")],
    working_dir: "/",
    capabilities: ["overview"],
    protocol_versions: [3],
  });
  return node;
}

/** Answers the node's next overview request about alice with `overview`. */
async function answerOverview(node: FakeNode, overview: Overview) {
  const ask = await node.inbox.next("overview_request", (frame) => frame.user_id === aliceId);
  node.send({ type: "overview", id: ask.id, user_id: aliceId, at: Date.now(), overview });
}

/** Answers the node's next forwarded message, as a host does (through its outbox). */
async function answerForward(node: FakeNode, text: string) {
  const forward = await node.inbox.next("forward");
  node.send({
    type: "forward_response",
    id: forward.id,
    text,
    delivery_id: `answer-${forward.id}`,
    user_id: forward.user_id,
    platform: forward.platform,
    chat_id: forward.chat_id,
  });
  return forward;
}

describe("console work views in a browser", () => {
  it("shows what waits for the user and what runs, live; an overview button runs its command on that node", async () => {
    const { node } = world;
    const page = alice;
    await answerOverview(node, sample.overview); // the page asked when it signed in

    const approval = page.locator('[data-approval="ab12"]');
    await approval.waitFor();
    expect(await approval.textContent()).toMatch(
      /Run `rm -rf build` in todo_app.*Home PC.*in telegram:5550001/s,
    );
    const session = page.locator('[data-session="3"]');
    expect(await session.textContent()).toMatch(/#3 codex in todo_app.*working.*Home PC · active/s);
    expect(await session.locator(".progress li").allTextContents()).toEqual(["🔧 npm test", "✏️ src/app.ts"]);
    await session.getByText("Recent turns (2)").click();
    expect(await session.locator(".turns li").allTextContents()).toEqual([
      "› add a done checkboxAdded the checkbox and a test.",
      "› run the testsrunning…",
    ]);
    expect(await page.locator('[data-task="a1b2c3"]').textContent()).toMatch(
      /backup photos.*running.*copied 120\/400/s,
    );
    const plan = page.locator('[data-plan="p-7"]');
    expect(await plan.locator(".subtask").allTextContents()).toEqual([
      "completed build: build the app · home-pc",
      "running test: run the tests · work-server",
    ]);
    expect(await page.locator('[data-job="12"]').textContent()).toMatch(
      /standup.*reminder.*cron 0 9 \* \* 1-5/s,
    );
    await screenshot(page, "work-desktop");

    // Approve: the node gets the user's own "/approve ab12", from the console chat.
    await approval.getByRole("button", { name: "Approve" }).click();
    const forward = await answerForward(node, "✅ Approved ab12.");
    expect(forward).toMatchObject({ text: "/approve ab12", user_id: aliceId, platform: "console" });
    await page.locator(".message:not(.mine)").filter({ hasText: "✅ Approved ab12." }).waitFor();
    // The node says alice's overview changed: the page is updated without a reload.
    node.send({ type: "overview_changed", user_ids: [aliceId] });
    await answerOverview(node, { ...sample.overview, approvals: [] });
    await approval.waitFor({ state: "detached" });

    // Cancel on the reminder runs /cancel 12 there.
    await page.locator('[data-job="12"]').getByRole("button", { name: "Cancel" }).click();
    expect(await answerForward(node, "🗑️ Cancelled #12")).toMatchObject({ text: "/cancel 12" });

    await page.setViewportSize(PHONE);
    // A phone shows one view at a time: the chat first, the work one tap away in the tab bar.
    expect(await page.locator(".work-sessions").isVisible()).toBe(false);
    await page.getByRole("tab", { name: /^Work/ }).click();
    await page.locator(".work-sessions").waitFor();
    expect(await page.locator(".chat").isVisible()).toBe(false);
    await screenshot(page, "work-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("the node going offline takes its work off the page", async () => {
    const { node } = world;
    const page = alice;
    node.send({ type: "overview_changed", user_ids: [aliceId] });
    await answerOverview(node, sample.overview);
    await page.locator('[data-session="3"]').waitFor();
    node.kill();
    await page.locator('[data-session="3"]').waitFor({ state: "detached" });
    expect(await page.locator(".work-sessions").textContent()).toContain("No coding sessions");
    // Back, for the tests after this one.
    world.node = await connectNode(world.nodeUrl, (step) => scope.add(step));
  });

  it("admins pair, share and see every host; other users get no admin view", async () => {
    const { chat, node } = world;
    const page = alice;
    const admin = page.getByRole("region", { name: "Admin" });
    // Online again (the previous test took the node down and back).
    await expect
      .poll(() => admin.locator('[data-admin-node="home-pc"]').textContent())
      .toMatch(/Home PC.*online.*admitted by the shared secret · serves memory:alice, memory:bob/s);
    await admin.getByLabel("New host name").fill("work-laptop");
    await admin.getByRole("button", { name: "Pair a host" }).click();
    await page
      .locator(".message:not(.mine)")
      .filter({ hasText: /phonework host --join \S+/ })
      .waitFor();
    // The router answered it itself: nothing reached the node.
    expect(node.inbox.frames.filter((frame) => frame.type === "forward")).toEqual([]);
    await screenshot(page, "admin");

    const bob = await signIn(browser, await consoleLinkFor(chat, "bob"));
    await bob.locator('[data-node="home-pc"]').waitFor();
    expect(await bob.getByRole("region", { name: "Admin" }).count()).toBe(0);
    await waitFor(() => chat.textsFor("bob").length > 0, { message: "bob's link message" });
  });
});

// A file's script, if it ever runs on the router's origin: it does what the page could (the user's
// cookie goes along), a chat message that the node would get as a forward.
const attack = (marker: string) =>
  `const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/console/ws");
   ws.onopen = () => ws.send(JSON.stringify({ type: "chat", text: "PWNED by ${marker}" }));`;

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** What hosts send: each file's name, the type its host claims, and its bytes. */
const FILES = {
  "invoice.html": {
    claim: "text/html",
    bytes: `<!doctype html><title>Invoice</title><script>${attack("invoice.html")}</script>`,
  },
  "evil.svg": {
    claim: "image/svg+xml",
    bytes: `<svg xmlns="http://www.w3.org/2000/svg"><script>${attack("evil.svg")}</script></svg>`,
  },
  // Says it is a PNG; its bytes are HTML.
  "photo.png": { claim: "image/png", bytes: `<!doctype html><script>${attack("photo.png")}</script>` },
  "real.png": { claim: "image/png", bytes: PNG },
} as const;
type FileName = keyof typeof FILES;

/**
 * What a new tab makes of `href`, opened as a long-press "Open in new tab" does (a navigation the
 * browser starts, outside the page and its CSP): "download", or the document it shows.
 */
async function openInNewTab(context: BrowserContext, href: string): Promise<string> {
  const tab = await context.newPage();
  const downloaded = tab.waitForEvent("download").then(
    () => "download",
    () => "no download",
  );
  const shown = await tab.goto(href).then(
    () => tab.content(),
    () => undefined, // a navigation that became a download is aborted
  );
  const outcome = shown === undefined ? await downloaded : `document: ${shown}`;
  await tab.close();
  return outcome;
}

/** The file's entry in the page's chat. */
const fileEntry = (page: Page, name: FileName) =>
  page.locator(".file").filter({ has: page.getByRole("link", { name: `Download ${name}` }) });

/** Every file is a download, whatever it claims; only the real PNG is shown, and as an image. */
async function expectInert(page: Page) {
  // Each in a tab of its own, all at once (the tabs share nothing but the profile).
  await Promise.all(
    (Object.keys(FILES) as FileName[]).map(async (name) => {
      const entry = fileEntry(page, name);
      const href = (await entry.getByRole("link").getAttribute("href")) ?? "";
      expect(href).toMatch(/^blob:/);
      expect(await openInNewTab(page.context(), href), name).toBe("download");
      expect(await entry.locator("img").count(), name).toBe(name === "real.png" ? 1 : 0);
    }),
  );
  const image = fileEntry(page, "real.png").locator("img");
  // Decoded (the tests compile without the DOM's types, hence the casts in the page's functions).
  expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
  // The image's own blob, opened in a tab, is shown by the browser's image viewer.
  expect(await openInNewTab(page.context(), (await image.getAttribute("src")) ?? "")).toMatch(
    /^document: <html[^>]*><head>.*<title>[^<]*\(1×1\)<\/title><\/head><body[^>]*><img [^>]*><\/body><\/html>$/,
  );

  // Opened by the page's own hand (window.open), the HTML is saved too: the tab opened for it
  // closes, and the download is the page's.
  const link = fileEntry(page, "invoice.html").getByRole("link");
  // The tab may close before the download is reported: wait for its close from the moment it opens.
  const popupClosed = page
    .context()
    .waitForEvent("page")
    .then((popup) => (popup.isClosed() ? undefined : popup.waitForEvent("close")));
  const [saved] = await Promise.all([
    page.waitForEvent("download"),
    popupClosed,
    link.evaluate((a) => {
      const href = (a as unknown as { href: string }).href;
      (globalThis as unknown as { open(url: string): unknown }).open(href);
    }),
  ]);
  expect(await downloadedText(saved)).toBe(FILES["invoice.html"].bytes);
  // And a click saves it under its name.
  const [clicked] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(clicked.suggestedFilename()).toBe("invoice.html");
}

describe("files from hosts in a browser", () => {
  it("HTML and SVG from a host run nothing on the router's origin, however opened; only raster images show", async () => {
    const { chat, node } = world;
    const page = alice;
    await page.setViewportSize(PHONE);
    await page.getByRole("tab", { name: "Chat" }).click();
    const mine = await page.locator(".message.mine").count();
    // A second page whose socket carries the hosts' claimed types, as if the router passed them on:
    // the page itself goes by the bytes.
    const told = await browser.newContext({ viewport: PHONE });
    onCleanup(() => told.close());
    await told.routeWebSocket(/\/console\/ws$/, (socket) => {
      const router = socket.connectToServer();
      router.onMessage((message) => {
        const frame = JSON.parse(String(message));
        const file = frame.type === "message" ? frame.message.file : undefined;
        if (file) file.mime_type = FILES[file.name as FileName].claim;
        socket.send(JSON.stringify(frame));
      });
    });
    const toldPage = await told.newPage();
    await toldPage.goto(await consoleLinkFor(chat, "alice"));
    await waitForLive(toldPage);

    // The console is alice's chat with the node now: its files land there, in every open page.
    await say(page, "send me the files");
    const { chat_id } = await answerForward(node, "Sending.");
    for (const [name, file] of Object.entries(FILES))
      node.send({
        type: "send_file",
        user_id: aliceId,
        platform: "console",
        chat_id,
        name,
        mime_type: file.claim,
        data_base64: Buffer.from(file.bytes).toString("base64"),
        delivery_id: `file-${name}`,
      });
    for (const name of Object.keys(FILES) as FileName[]) {
      await fileEntry(page, name).waitFor();
      await fileEntry(toldPage, name).waitFor();
    }
    await screenshot(page, "files-phone");

    // Two profiles: checked side by side.
    await Promise.all([expectInert(page), expectInert(toldPage)]);
    // No script reached the router: the next message the node gets is the user's own.
    await say(page, "thanks");
    expect((await answerForward(node, "You're welcome.")).text).toBe("thanks");
    expect((await page.locator(".message.mine").allTextContents()).slice(mine)).toEqual([
      "send me the files",
      "thanks",
    ]);
    // Two pages and a dozen tabs and downloads: seconds alone, far more beside busy processes.
  }, 90_000);
});
