import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  CleanupScope,
  type FakeFeishu,
  type FeishuConversation,
  feishuConversation,
  messageEvent,
  type SpawnedProcess,
  spawnApp,
  startFakeFeishu,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The README's pairing flow with real processes: `pnpm router` (Feishu through the real SDK
// against the fake), `phonework pair` beside it, `phonework host --join <code>`, a second PC paired
// from chat — then every secret any of them was given or made is looked for in their logs.

const USER = "ou_alice";
const CHAT = "oc_alice";
const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const OPENAI_KEY = "sk-e2e-host-key-0123456789";
const scope = new CleanupScope();
const logs: SpawnedProcess[] = [];
let fake: FakeFeishu;
let router: SpawnedProcess;
let routerData = "";
let nodeUrl = "";
const joinCodes: string[] = [];
/** Every host's DATA_DIR, to read back the private keys the hosts made. */
const hostDirs: string[] = [];

const temp = () => scope.tempDir();

function track(child: SpawnedProcess): SpawnedProcess {
  logs.push(child);
  return scope.track(child);
}

function host(dataDir: string, env: Record<string, string> = {}, args: string[] = []): SpawnedProcess {
  hostDirs.push(dataDir);
  return track(
    spawnApp(
      "host",
      {
        ROUTER_URL: nodeUrl,
        ROUTER_SECRET: "",
        NODE_ID: "",
        JOIN_CODE: "",
        DATA_DIR: dataDir,
        WORKING_DIR: dataDir,
        RECONNECT_MAX_DELAY_S: "0.3",
        LOG_LEVEL: "debug",
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        ...env,
      },
      args,
    ),
  );
}

let chat: FeishuConversation;
/** home-pc's DATA_DIR and its running host, from the first test on. */
let homeData = "";
let homePc: SpawnedProcess;
const say = (text: string, expected: RegExp) => chat.say(text, expected);

describe("pairing a PC, end to end (real router, pair CLI and host processes)", () => {
  beforeAll(async () => {
    fake = await startFakeFeishu();
    chat = feishuConversation(fake, USER, CHAT);
    routerData = temp();
    router = track(
      spawnApp("router", {
        ROUTER_SECRET: "",
        ROUTER_HOST: "127.0.0.1",
        ROUTER_PORT: "0",
        DATA_DIR: routerData,
        LOG_LEVEL: "debug",
        FEISHU_APP_ID: fake.appId,
        FEISHU_APP_SECRET: fake.appSecret,
        FEISHU_DOMAIN: fake.url,
        ALLOWED_USERS: USER,
        ADMIN_TOKEN,
        PROGRESS_INTERVAL_S: "0",
      }),
    );
    const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    nodeUrl = `${(url ?? "").replace("http", "ws")}/ws/node`;
    await router.waitForStderr(/chat started/);
  });

  afterAll(async () => {
    await scope.run();
    await fake?.close();
  });

  it("`phonework pair` beside the running router prints the code alone on its last line; `phonework host --join` pairs", async () => {
    // With the router's chat config: the owner, the only ALLOWED_USERS entry, is a Feishu user.
    const pair = track(
      spawnApp(
        "pair",
        {
          DATA_DIR: routerData,
          FEISHU_APP_ID: fake.appId,
          FEISHU_APP_SECRET: fake.appSecret,
          FEISHU_DOMAIN: fake.url,
          ALLOWED_USERS: USER,
          LOG_LEVEL: "warn",
        },
        ["home-pc"],
      ),
    );
    expect((await pair.exited).code).toBe(0);
    const code = pair.stdout().trim().split("\n").at(-1) ?? "";
    expect(code).toMatch(/^home-pc:[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(pair.stdout()).toContain(`(owner feishu:${USER})`);
    expect(pair.stdout()).toContain(`phonework host --join ${code}`);
    joinCodes.push(code);

    homeData = temp();
    const home = host(homeData, {}, ["--join", code]);
    await router.waitForStderr(/"nodeId":"home-pc".*"msg":"node paired"/);
    await home.waitForStderr(/paired with the router/);
    // Its start line names the working folder, the data folder and the router.
    const [startLine = ""] = await home.waitForStderr(/.*"msg":"host home-pc starting: working in [^"]+".*/);
    expect(JSON.parse(startLine)).toMatchObject({
      workingDir: homeData,
      dataDir: homeData,
      routerUrl: nodeUrl,
    });
    // Its owner is told once, in chat, that the pairing worked.
    await waitFor(
      () =>
        JSON.stringify(fake.sent().filter((m) => m.receive_id === USER)).includes(
          "🎉 home-pc is paired and online",
        ),
      { message: "the join notice" },
    );
    expect(await say("/nodes", /→ home-pc/)).toMatch(/→ home-pc\s+\[ACTIVE\]/);
    expect(await say("/shell echo paired-and-working", /paired-and-working/)).toContain("paired-and-working");

    const identity = join(homeData, "host", "identity.json");
    expect(statSync(identity).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(identity, "utf8"))).toMatchObject({ node_id: "home-pc" });

    // Restarted without the code (and without NODE_ID), it is still home-pc, by its key alone.
    home.kill("SIGTERM");
    await home.exited;
    const again = host(homeData);
    homePc = again;
    await again.waitForStderr(/registered with router/);
    expect(await say("/shell echo back-again", /back-again/)).toContain("back-again");

    // The code is spent: another PC presenting it is told so and stops (exit 2).
    const thief = host(temp(), { JOIN_CODE: code });
    expect((await thief.exited).code).toBe(2);
    expect(thief.stderr()).toContain("the router refused the join code");
  });

  it("a second PC paired from chat with /pair joins under its own key", async () => {
    const reply = await say("/pair work-srv", /Join code for work-srv/);
    const code = reply.split("\n").find((line) => line.startsWith("work-srv:")) ?? "";
    joinCodes.push(code);
    const work = host(temp(), { JOIN_CODE: code });
    await work.waitForStderr(/paired with the router/);
    expect(await say("/nodes", /work-srv/)).toMatch(/work-srv/);
    expect(await say("@work-srv /shell echo from-work", /from-work/)).toContain("from-work");
  });

  it("a revoked host stops with the steps to pair again; a new code for its name pairs it again (old key kept as .bak); the same code again keeps the key", async () => {
    const identity = join(homeData, "host", "identity.json");
    const oldKey = JSON.parse(readFileSync(identity, "utf8")).public_key as string;
    expect(await say("/revoke home-pc", /revoked/)).toContain("home-pc revoked");
    expect((await homePc.exited).code).toBe(2);
    expect(homePc.stderr()).toContain(
      "home-pc was revoked, or the router no longer knows it; to pair it again, ask an admin for a join code (/pair home-pc in chat, or `phonework pair home-pc` on the router), then start this host once with `phonework host --join <code>`",
    );

    const reply = await say("/pair home-pc", /Join code for home-pc/);
    const code = reply.split("\n").find((line) => line.startsWith("home-pc:")) ?? "";
    joinCodes.push(code);
    const repaired = host(homeData, {}, ["--join", code]);
    await repaired.waitForStderr(/pairing as home-pc with the join code given/);
    await repaired.waitForStderr(/paired with the router/);
    expect(await say("@home-pc /shell echo paired-again", /paired-again/)).toContain("paired-again");
    const newFile = JSON.parse(readFileSync(identity, "utf8"));
    expect(newFile.public_key).not.toBe(oldKey);
    expect(JSON.parse(readFileSync(`${identity}.bak`, "utf8")).public_key).toBe(oldKey);
    expect(statSync(`${identity}.bak`).mode & 0o777).toBe(0o600);

    // The same code left on the command line (or in a service file): the saved key, no new pairing.
    repaired.kill("SIGTERM");
    await repaired.exited;
    const restarted = host(homeData, {}, ["--join", code]);
    homePc = restarted;
    await restarted.waitForStderr(/registered with router/);
    expect(restarted.stderr()).not.toContain("pairing as home-pc");
    expect(JSON.parse(readFileSync(identity, "utf8")).public_key).toBe(newFile.public_key);
    expect(await say("@home-pc /shell echo same-key", /same-key/)).toContain("same-key");
  });

  it("/pair for a paired node gives a code that replaces its key: a new PC takes the name, the old one stops saying how to pair again", async () => {
    const reply = await say("/pair home-pc", /Join code for home-pc/);
    expect(reply).toContain("Once it is used, the key home-pc has now is refused");
    const code = reply.split("\n").find((line) => line.startsWith("home-pc:")) ?? "";
    joinCodes.push(code);
    const newPc = host(temp(), {}, ["--join", code]);
    await newPc.waitForStderr(/paired with the router/);
    // The old PC is replaced on the socket, and its key is refused when it comes back.
    expect((await homePc.exited).code).toBe(2);
    expect(homePc.stderr()).toContain(
      "the router refused this node's key: home-pc was revoked, or the router no longer knows it",
    );
    expect(await say("@home-pc /shell echo new-pc", /new-pc/)).toContain("new-pc");
  });

  it("no log line of any process holds a secret it was given or made (Feishu 5xx included)", async () => {
    // Answers are replies (…/messages/:id/reply); other messages are plain sends.
    fake.failNext(/\/open-apis\/im\/v1\/messages(?:\/[^/]+\/reply)?$/, { status: 500, times: 6 });
    await fake.pushEvent(
      messageEvent({ openId: USER, chatId: CHAT, chatType: "p2p", text: "/shell echo x" }),
    );
    await router.waitForStderr(/"platform":"feishu"[^\n]*"msg":"sendText failed"/, 20_000);
    const privateKeys = readPrivateKeys();
    expect(privateKeys.length).toBeGreaterThanOrEqual(2);
    const secrets = [
      fake.appSecret,
      ...fake.issuedTokens(),
      ADMIN_TOKEN,
      OPENAI_KEY,
      ...joinCodes.map((code) => code.split(":")[1] ?? ""),
      ...privateKeys,
    ];
    expect(fake.issuedTokens().length).toBeGreaterThan(0);
    const all = logs.map((p) => p.stderr()).join("\n"); // stdout is output (the pair CLI prints its code there)
    expect(all.length).toBeGreaterThan(10_000); // debug logs of several processes: there was plenty to leak into
    for (const secret of secrets) expect(all.includes(secret), `leaked: ${secret.slice(0, 12)}…`).toBe(false);
  });

  it("a host that would talk in plaintext to another machine, or is not paired, stops at once (exit 2) saying why", async () => {
    const plaintext = host(temp(), {
      ROUTER_URL: "ws://10.0.0.5:8000/ws/node",
      JOIN_CODE: "x:AAAA-AAAA-AAAA-AAAA",
    });
    expect((await plaintext.exited).code).toBe(2);
    expect(plaintext.stderr()).toContain("ROUTER_URL: is ws:// (plaintext) to a router on another machine");
    const unpaired = host(temp());
    expect((await unpaired.exited).code).toBe(2);
    expect(unpaired.stderr()).toContain("this host is not paired with a router");
  });

  it("Feishu unreachable at start: the app secret is in no log line", async () => {
    const down = track(
      spawnApp("router", {
        ROUTER_HOST: "127.0.0.1",
        ROUTER_PORT: "0",
        DATA_DIR: temp(),
        LOG_LEVEL: "debug",
        FEISHU_APP_ID: "cli_unreachable",
        FEISHU_APP_SECRET: "unreachable-app-secret-0123456789",
        FEISHU_DOMAIN: "http://127.0.0.1:9",
        ALLOWED_USERS: USER,
      }),
    );
    await down.waitForStderr(/"level":50/, 20_000);
    expect(down.stderr()).not.toContain("unreachable-app-secret-0123456789");
  });
});

/** The base64 body of every node private key the hosts saved. */
function readPrivateKeys(): string[] {
  return hostDirs.flatMap((dir) => {
    try {
      const file = JSON.parse(readFileSync(join(dir, "host", "identity.json"), "utf8")) as {
        private_key: string;
      };
      return [
        file.private_key
          .split("\n")
          .filter((line) => !line.startsWith("-----"))
          .join(""),
      ];
    } catch {
      return []; // a host that never paired (the thief)
    }
  });
}
