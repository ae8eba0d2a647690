import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CleanupScope,
  type FakeFeishu,
  feishuConversation,
  messageEvent,
  type SpawnedProcess,
  spawnApp,
  startFakeFeishu,
  waitFor,
} from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// `phonework standalone` with Feishu configured chats on Feishu, like the router: real standalone
// processes, the real SDK talking to the fake Feishu, webhook events signed and encrypted as
// Feishu sends them. With stdin ended it keeps running; a signal stops it (exit 0).

const scope = new CleanupScope();
afterEach(() => scope.run());

const ALICE = "ou_alice";
const ALICE_CHAT = "oc_alice";
const ENCRYPT_KEY = "standalone-encrypt-key";
const TOKEN = "standalone-verification-token";
const NODES = /^→ my-box\s+\[ACTIVE\]\s+sessions=0\s+online/m;

/** Whatever the shell running the tests has set: these runs decide for themselves. */
const UNSET = {
  LOG_LEVEL: undefined,
  LOG_FORMAT: undefined,
  PHONEWORK_CONFIG: undefined,
  CHAT: undefined,
  ADMINS: undefined,
  ROUTER_HOST: undefined,
  ROUTER_PORT: undefined,
};

async function fakeFeishu(): Promise<FakeFeishu> {
  const fake = await startFakeFeishu();
  scope.add(() => fake.close());
  return fake;
}

function standalone(fake: FakeFeishu, env: Record<string, string | undefined> = {}) {
  const dataDir = scope.tempDir();
  const child = scope.track(
    spawnApp("standalone", {
      ...UNSET,
      DATA_DIR: dataDir,
      WORKING_DIR: scope.tempDir(),
      NODE_ID: "my-box",
      FEISHU_APP_ID: fake.appId,
      FEISHU_APP_SECRET: fake.appSecret,
      FEISHU_DOMAIN: fake.url,
      ALLOWED_USERS: ALICE,
      PROGRESS_INTERVAL_S: "0",
      ...env,
    }),
  );
  return { child, dataDir };
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const SERVING = "standalone serving chat platforms";

/** The one log line saying what the standalone serves, once it is up. */
async function servingLine(child: SpawnedProcess): Promise<Record<string, unknown>> {
  await child.waitForStderr(/"msg":"standalone serving chat platforms"/);
  const line = jsonLines(child.stderr()).find((entry) => entry.msg === SERVING);
  return line ?? {};
}

/** Asserts the process outlived the end of its input, then stops it with SIGTERM: exit 0. */
async function stopsOnSignal(child: SpawnedProcess): Promise<void> {
  expect(child.child.exitCode, child.stderr()).toBeNull();
  child.kill("SIGTERM");
  expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
}

describe("pnpm standalone with Feishu configured (real processes, fake Feishu)", () => {
  it("webhook mode: a signed, encrypted event posted to its router is answered in the Feishu chat", async () => {
    const fake = await fakeFeishu();
    const { child, dataDir } = standalone(fake, {
      FEISHU_MODE: "webhook",
      FEISHU_ENCRYPT_KEY: ENCRYPT_KEY,
      FEISHU_VERIFICATION_TOKEN: TOKEN,
    });
    child.endInput(); // Feishu is the chat: the end of stdin is not the end of the standalone
    const serving = await servingLine(child);
    expect(serving).toMatchObject({ nodeId: "my-box", platforms: ["feishu (feishu, webhook)"] });
    const [hook] = serving.webhooks as string[];
    expect(hook).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/feishu$/);
    // A random port changes at every start: the user is told to fix it for the platform's sake
    // (the line after the serving one).
    await child.waitForStderr(/"msg":"ROUTER_PORT is not set/);

    const challenge = await fake.postWebhook(
      hook ?? "",
      { type: "url_verification", challenge: "c-123", token: TOKEN },
      { encryptKey: ENCRYPT_KEY },
    );
    expect(challenge).toEqual({ status: 200, body: { challenge: "c-123" } });
    const event = messageEvent({
      openId: ALICE,
      chatId: ALICE_CHAT,
      chatType: "p2p",
      text: "/nodes",
      token: TOKEN,
    });
    const posted = await fake.postWebhook(hook ?? "", event, { encryptKey: ENCRYPT_KEY });
    expect(posted.status).toBe(200);
    const chat = feishuConversation(fake, ALICE, ALICE_CHAT);
    await waitFor(() => chat.texts().find((text) => NODES.test(text)), { message: "/nodes answered" });
    const unsigned = await fake.postWebhook(hook ?? "", event, { encryptKey: ENCRYPT_KEY, unsigned: true });
    expect(unsigned.status).toBe(401);

    // The terminal is not the chat: nothing on stdout, the whole log on stderr, no log file.
    expect(child.stdout()).toBe("");
    expect(existsSync(join(dataDir, "logs", "phonework.log"))).toBe(false);
    expect(jsonLines(child.stderr()).map((line) => line.msg)).toEqual(
      expect.arrayContaining(["router listening", "node registered", "chat started"]),
    );
    await stopsOnSignal(child);
  });

  it("ws mode: answers over the long connection; ALLOWED_USERS applies, its only entry is the admin", async () => {
    const fake = await fakeFeishu();
    const { child } = standalone(fake);
    child.endInput();
    await fake.waitForWsConnection();
    expect(await servingLine(child)).toMatchObject({ nodeId: "my-box", platforms: ["feishu (feishu, ws)"] });
    expect(jsonLines(child.stderr()).find((line) => line.webhooks !== undefined)).toBeUndefined();

    const alice = feishuConversation(fake, ALICE, ALICE_CHAT);
    expect(await alice.say("/nodes", NODES)).toMatch(NODES);
    // /status is for admins: ADMINS defaults to the only ALLOWED_USERS entry, as on the router.
    // The node admitted by the shared secret (this process's own host) serves every allowed user.
    await alice.say("/status", /^Router status:\n• my-box .*; shared secret; serves all users$/m);

    const mallory = feishuConversation(fake, "ou_mallory", "oc_mallory");
    // The id to add is the one ALLOWED_USERS takes whatever else is configured: qualified.
    await mallory.say("hello", /^🔒 This bot is private\. .*ALLOWED_USERS: feishu:ou_mallory$/);
    await fake.pushEvent(
      messageEvent({ openId: "ou_mallory", chatId: "oc_mallory", chatType: "p2p", text: "hello again" }),
    );
    // Alice's answer after Mallory's second message shows that message was handled: told once.
    await alice.say("/nodes", NODES);
    expect(mallory.texts()).toEqual([expect.stringMatching(/^🔒 This bot is private\./)]);

    expect(child.stdout()).toBe("");
    await stopsOnSignal(child);
  });

  it("CHAT=terminal with Feishu configured: piped input is a chat beside Feishu; its end stops the standalone", async () => {
    const fake = await fakeFeishu();
    const { child, dataDir } = standalone(fake, { CHAT: "terminal" });
    // The terminal is a chat: the log goes to DATA_DIR/logs/phonework.log, not to stderr.
    const logFile = join(dataDir, "logs", "phonework.log");
    const log = () => (existsSync(logFile) ? jsonLines(readFileSync(logFile, "utf8")) : []);
    await fake.waitForWsConnection();
    const serving = await waitFor(() => log().find((line) => line.msg === SERVING), {
      message: "the serving line in the log file",
    });
    expect(serving).toMatchObject({ nodeId: "my-box", platforms: ["feishu (feishu, ws)"] });
    // Feishu is served...
    const alice = feishuConversation(fake, ALICE, ALICE_CHAT);
    expect(await alice.say("/nodes", NODES)).toMatch(NODES);
    // ...and so is the piped input, whose end stops the whole standalone, as Ctrl-D would.
    child.writeLine("/nodes");
    child.endInput();
    expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toMatch(NODES);
    expect(child.stderr()).not.toContain(SERVING);
    expect(log().map((line) => line.msg)).not.toContain("standalone ready");
  });

  it("a ROUTER_HOST off loopback stops at once (exit 2): its own host could never join", async () => {
    const fake = await fakeFeishu();
    const { child } = standalone(fake, { ROUTER_HOST: "0.0.0.0" });
    expect(await child.exited).toEqual({ code: 2, signal: null });
    expect(child.stderr()).toMatch(
      /^ {2}ROUTER_HOST: must be a loopback address .*reverse proxy or a tunnel/m,
    );
  });
});
