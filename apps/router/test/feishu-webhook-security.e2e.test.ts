import { loadConfig } from "@phonework/runtime";
import {
  createManualClock,
  type FakeFeishu,
  fcParams,
  makeTempDir,
  messageEvent,
  sendWebhookRequest,
  spawnApp,
  startFakeFeishu,
  urlVerificationEvent,
  waitFor,
  watchProcessErrors,
} from "@phonework/testkit";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { recordingHost, sentTexts, startFeishuRouter } from "./feishu-support.ts";
import { onCleanup, SECRET } from "./support.ts";

// POST /webhook/feishu as an attacker sees it: a real router over HTTP, the real SDK behind it, the
// fake Feishu signing (or not) what is posted, and a real host that records whatever reaches it.
// Each attack is refused and, in the same test, the genuine request still gets through.

const ENCRYPT_KEY = "enc-key-123";
const TOKEN = "vtoken";
const WEBHOOK = { FEISHU_MODE: "webhook", FEISHU_ENCRYPT_KEY: ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: TOKEN };
const ATTACK = "/shell id > /tmp/x";

let fake: FakeFeishu;
beforeEach(async () => {
  fake = await startFakeFeishu();
  onCleanup(() => fake.close());
});

const aliceSays = (text: string, token = TOKEN) =>
  messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text, token });

/** A webhook-mode router with a recording host behind it; `clock` drives the freshness check. */
async function webhookRouter(
  options: { clock?: { now(): number }; overrides?: Record<string, unknown> } = {},
) {
  const started = await startFeishuRouter(fake, { ...WEBHOOK, ...options.overrides }, options);
  const { received } = await recordingHost(started.router);
  const hook = `${started.url}/webhook/feishu`;
  /** Sends a genuine event and waits for its answer: the route still works after the attacks. */
  const genuine = async (text: string) => {
    const answer = await fake.postWebhook(hook, aliceSays(text), { encryptKey: ENCRYPT_KEY });
    expect(answer.status).toBe(200);
    await waitFor(() => sentTexts(fake, "oc_alice").includes(`home-pc: ${text}`));
  };
  return { ...started, hook, received, genuine };
}

const rejections = (logs: () => Array<Record<string, unknown>>) =>
  logs().filter((line) => line.msg === "webhook rejected");

describe("webhook mode refuses to start without both secrets", () => {
  const base = {
    ROUTER_SECRET: SECRET,
    FEISHU_APP_ID: "cli_x",
    FEISHU_APP_SECRET: "s",
    FEISHU_MODE: "webhook",
  };
  const missing = [
    {},
    { FEISHU_ENCRYPT_KEY: ENCRYPT_KEY },
    { FEISHU_VERIFICATION_TOKEN: TOKEN },
    { FEISHU_ENCRYPT_KEY: "", FEISHU_VERIFICATION_TOKEN: "" },
    { FEISHU_ENCRYPT_KEY: ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: "" },
    { FEISHU_ENCRYPT_KEY: "", FEISHU_VERIFICATION_TOKEN: TOKEN },
  ];

  it('from the environment (absent or empty) and from YAML ("" or empty): one line naming both keys', () => {
    for (const secrets of missing) {
      const fromEnv = () => loadConfig(RouterConfigSchema, { env: { ...base, ...secrets } });
      expect(fromEnv, JSON.stringify(secrets)).toThrow(
        /^invalid configuration:\n {2}[^\n]*FEISHU_ENCRYPT_KEY[^\n]*FEISHU_VERIFICATION_TOKEN[^\n]*$/,
      );
      const yaml = Object.entries({ ...base, ...secrets })
        .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
        .join("\n");
      const fromYaml = () =>
        loadConfig(RouterConfigSchema, { configPath: "router.yaml", env: {}, readFile: () => yaml });
      expect(fromYaml, yaml).toThrow(/FEISHU_ENCRYPT_KEY[^\n]*FEISHU_VERIFICATION_TOKEN/);
    }
    const blankYaml = `FEISHU_MODE: webhook\nFEISHU_ENCRYPT_KEY:\nFEISHU_VERIFICATION_TOKEN: ${TOKEN}\n`;
    expect(() =>
      loadConfig(RouterConfigSchema, {
        configPath: "router.yaml",
        env: base,
        readFile: () => blankYaml,
      }),
    ).toThrow(/FEISHU_ENCRYPT_KEY[^\n]*FEISHU_VERIFICATION_TOKEN/);
  });

  it("both set: webhook mode starts; ws mode needs neither, and an empty one there is just unset", () => {
    const both = { ...base, FEISHU_ENCRYPT_KEY: ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: TOKEN };
    expect(loadConfig(RouterConfigSchema, { env: both }).config).toMatchObject({
      FEISHU_MODE: "webhook",
      WEBHOOK_MAX_AGE_S: 300,
    });
    const ws = loadConfig(RouterConfigSchema, {
      configPath: "router.yaml",
      env: { ...base, FEISHU_MODE: "ws" },
      readFile: () => 'FEISHU_ENCRYPT_KEY: ""\n',
    });
    expect(ws.config.FEISHU_ENCRYPT_KEY).toBeUndefined();
  });

  it("the router process exits 2 with that one line, and serves nothing", async () => {
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const router = spawnApp("router", {
      ROUTER_SECRET: SECRET,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      DATA_DIR: dir.path,
      FEISHU_APP_ID: fake.appId,
      FEISHU_APP_SECRET: fake.appSecret,
      FEISHU_DOMAIN: fake.url,
      FEISHU_MODE: "webhook",
      FEISHU_ENCRYPT_KEY: "",
      FEISHU_VERIFICATION_TOKEN: undefined,
      ALLOWED_USERS: "ou_alice",
    });
    onCleanup(() => router.kill("SIGKILL"));
    const exit = await router.exitedWithin(15_000);
    expect(exit, router.stdout()).toEqual({ code: 2, signal: null });
    const lines = router.stderr().trimEnd().split("\n");
    expect(lines).toEqual([
      "phonework: invalid configuration:",
      expect.stringMatching(/^ {2}FEISHU_ENCRYPT_KEY.*FEISHU_VERIFICATION_TOKEN.*FEISHU_MODE=webhook/),
    ]);
    expect(router.stdout()).not.toMatch(/router listening/);
  }, 20_000);
});

describe("every event is signed with the encrypt key and carries the verification token", () => {
  it("unsigned, wrongly signed, wrong-key, wrong-token and other-length-token events are refused; nothing is forwarded", async () => {
    const { hook, received, genuine, logs } = await webhookRouter();
    const attacks: Array<[string, object, Parameters<FakeFeishu["postWebhook"]>[2], number]> = [
      ["plain JSON, no headers (the attack on an unconfigured router)", aliceSays(ATTACK), {}, 400],
      ["plain JSON, signed with the key", aliceSays(ATTACK), { signWith: ENCRYPT_KEY }, 400],
      ["encrypted but unsigned", aliceSays(ATTACK), { encryptKey: ENCRYPT_KEY, unsigned: true }, 401],
      [
        "signature that does not verify",
        aliceSays(ATTACK),
        { encryptKey: ENCRYPT_KEY, badSignature: true },
        401,
      ],
      [
        "signed with another key",
        aliceSays(ATTACK),
        { encryptKey: ENCRYPT_KEY, signWith: "not-the-key" },
        401,
      ],
      [
        "encrypted with another key",
        aliceSays(ATTACK),
        { encryptKey: "not-the-key", signWith: ENCRYPT_KEY },
        400,
      ],
      ["wrong token", aliceSays(ATTACK, "nopeen"), { encryptKey: ENCRYPT_KEY }, 401],
      ["token one character longer", aliceSays(ATTACK, `${TOKEN}x`), { encryptKey: ENCRYPT_KEY }, 401],
      [
        "token one character shorter",
        aliceSays(ATTACK, TOKEN.slice(0, -1)),
        { encryptKey: ENCRYPT_KEY },
        401,
      ],
      ["no token", aliceSays(ATTACK, ""), { encryptKey: ENCRYPT_KEY }, 401],
    ];
    for (const [what, event, options, status] of attacks) {
      const answer = await fake.postWebhook(hook, event, options);
      expect(answer.status, what).toBe(status);
      expect(answer.body, what).toEqual({ error: expect.any(String) });
    }
    await genuine("hello");
    expect(received).toEqual(["hello"]);
    expect(sentTexts(fake)).toEqual(["home-pc: hello"]);
    const logged = rejections(logs);
    expect(logged).toHaveLength(attacks.length);
    for (const line of logged) {
      expect(line.level).toBe(40); // warn
      expect(line.reason).toEqual(expect.any(String));
      expect(JSON.stringify(line)).not.toContain(ENCRYPT_KEY);
      expect(JSON.stringify(line)).not.toContain(TOKEN);
    }
  });

  it("the url_verification challenge (encrypted, unsigned, as Feishu sends it) is answered only with the right token", async () => {
    const { hook, received, genuine } = await webhookRouter();
    const challenge = (token: string, options = {}) =>
      fake.postWebhook(hook, urlVerificationEvent({ challenge: "c-1", token }), {
        encryptKey: ENCRYPT_KEY,
        ...options,
      });
    expect(await challenge(TOKEN)).toEqual({ status: 200, body: { challenge: "c-1" } });
    expect(await challenge(TOKEN, { unsigned: false })).toEqual({ status: 200, body: { challenge: "c-1" } });
    expect((await challenge("nopeen")).status).toBe(401);
    expect((await challenge(`${TOKEN}x`)).status).toBe(401);
    expect((await challenge(TOKEN, { encryptKey: "not-the-key" })).status).toBe(401);
    // With an Encrypt Key set, Feishu encrypts everything: a plain challenge is not from Feishu.
    expect(
      (await fake.postWebhook(hook, urlVerificationEvent({ challenge: "c-2", token: TOKEN }))).status,
    ).toBe(400);
    await genuine("after the challenge");
    expect(received).toEqual(["after the challenge"]);
  });
});

describe("events are accepted only within WEBHOOK_MAX_AGE_S of their signed timestamp", () => {
  it("two days old, 301 s old and 301 s ahead are refused; 299 s old and 299 s ahead are accepted", async () => {
    const clock = createManualClock();
    const { hook, received, logs } = await webhookRouter({ clock });
    const signedAt = Math.floor(clock.now() / 1000) - 1000;
    const at = async (ageS: number, text: string) => {
      clock.set((signedAt + ageS) * 1000);
      return (await fake.postWebhook(hook, aliceSays(text), { encryptKey: ENCRYPT_KEY, timestamp: signedAt }))
        .status;
    };
    expect(await at(2 * 86_400, "two days old")).toBe(401);
    expect(await at(301, "301 s old")).toBe(401);
    expect(await at(-301, "301 s ahead")).toBe(401);
    expect(await at(299, "299 s old")).toBe(200);
    expect(await at(-299, "299 s ahead")).toBe(200);
    expect(await at(300, "300 s old")).toBe(200);
    // One more, fresh: alice's events are handled in the order they came, so once it is through,
    // nothing sent before it is still on its way.
    expect(await at(0, "fresh")).toBe(200);
    await waitFor(() => received.includes("fresh"), { message: "the fresh event" });
    expect(received.filter((text) => text !== "fresh").sort()).toEqual([
      "299 s ahead",
      "299 s old",
      "300 s old",
    ]);
    expect(rejections(logs).map((line) => line.reason)).toEqual([
      expect.stringMatching(/172800 s old/),
      expect.stringMatching(/301 s old/),
      expect.stringMatching(/301 s in the future/),
    ]);
  });

  it("WEBHOOK_MAX_AGE_S sets the window", async () => {
    const clock = createManualClock();
    const { hook, received } = await webhookRouter({ clock, overrides: { WEBHOOK_MAX_AGE_S: 30 } });
    const signedAt = Math.floor(clock.now() / 1000);
    clock.set((signedAt + 31) * 1000);
    const late = await fake.postWebhook(hook, aliceSays("31 s"), {
      encryptKey: ENCRYPT_KEY,
      timestamp: signedAt,
    });
    expect(late.status).toBe(401);
    clock.set((signedAt + 29) * 1000);
    const inTime = await fake.postWebhook(hook, aliceSays("29 s"), {
      encryptKey: ENCRYPT_KEY,
      timestamp: signedAt,
    });
    expect(inTime.status).toBe(200);
    await waitFor(() => received.length === 1);
    expect(received).toEqual(["29 s"]);
  });
});

describe("a replayed request is processed once", () => {
  it("the exact same valid request twice, and again after a router restart with the same DATA_DIR", async () => {
    const first = await webhookRouter();
    const request = fake.webhookRequest(aliceSays("once"), { encryptKey: ENCRYPT_KEY });
    expect((await sendWebhookRequest(first.hook, request)).status).toBe(200);
    expect((await sendWebhookRequest(first.hook, request)).status).toBe(200); // acknowledged, dropped
    await waitFor(() => sentTexts(fake, "oc_alice").includes("home-pc: once"));
    await first.close();

    const second = await webhookRouter({ overrides: { DATA_DIR: first.config.DATA_DIR } });
    expect((await sendWebhookRequest(second.hook, request)).status).toBe(200);
    await second.genuine("next");
    expect([...first.received, ...second.received]).toEqual(["once", "next"]);
    expect(sentTexts(fake).filter((text) => text === "home-pc: once")).toHaveLength(1);
  });
});

describe("hostile input never crashes the route and is never accepted", () => {
  it("malformed JSON, wrong types, missing headers, non-JSON content types and oversized bodies", async () => {
    const watch = watchProcessErrors();
    onCleanup(() => watch.stop());
    const { hook, received, genuine } = await webhookRouter();
    const signed = fake.webhookRequest(aliceSays(ATTACK), { encryptKey: ENCRYPT_KEY });
    const post = async (body: string, headers: Record<string, string> = {}) =>
      (
        await fetch(hook, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        })
      ).status;
    const without = (name: string) =>
      Object.fromEntries(Object.entries(signed.headers).filter(([key]) => key !== name));
    const cases: Array<[string, number]> = [
      ["{", await post("{")],
      ["empty body", await post("")],
      ["null", await post("null")],
      ["array", await post("[]")],
      ["string", await post('"encrypt"')],
      ["encrypt is a number", await post('{"encrypt":123}', signed.headers)],
      ["encrypt is not base64 of a block", await post('{"encrypt":"abc"}', signed.headers)],
      ["no timestamp", await post(signed.rawBody, without("x-lark-request-timestamp"))],
      ["no nonce", await post(signed.rawBody, without("x-lark-request-nonce"))],
      ["no signature", await post(signed.rawBody, without("x-lark-signature"))],
      [
        "timestamp not a number",
        await post(signed.rawBody, { ...signed.headers, "x-lark-request-timestamp": "soon" }),
      ],
      [
        "text/plain, unsigned",
        await post(signed.rawBody, { ...without("x-lark-signature"), "content-type": "text/plain" }),
      ],
    ];
    for (const [what, status] of cases) {
      expect(status, what).toBeGreaterThanOrEqual(400);
      expect(status, what).toBeLessThan(500);
    }
    const huge = JSON.stringify({ encrypt: "A".repeat(2 * 1024 * 1024) });
    expect(await post(huge, signed.headers)).toBe(413);
    expect(
      (await fetch(hook, { method: "POST", headers: { "content-type": "application/xml" }, body: "<x/>" }))
        .status,
    ).toBe(415);
    await genuine("still here");
    expect(received).toEqual(["still here"]);
    expect(watch.errors).toEqual([]);
  });

  it("random headers and bodies, and any change to a genuine request: 4xx, never forwarded", async () => {
    const watch = watchProcessErrors();
    onCleanup(() => watch.stop());
    const { hook, received, genuine } = await webhookRouter();
    const printable = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
      maxLength: 80,
    });
    const headerValue = fc.oneof(
      printable,
      fc.integer({ min: 0, max: 2 ** 40 }).map(String),
      fc.constant(String(Math.floor(Date.now() / 1000))),
      fc.stringMatching(/^[0-9a-f]{64}$/),
    );
    const headers = fc.record(
      {
        "x-lark-request-timestamp": headerValue,
        "x-lark-request-nonce": headerValue,
        "x-lark-signature": headerValue,
        "content-type": fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain"),
      },
      { requiredKeys: ["content-type"] },
    );
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.json({ maxDepth: 3 }),
      fc.base64String({ maxLength: 400 }).map((encrypt) => JSON.stringify({ encrypt })),
      fc.constant(JSON.stringify(aliceSays(ATTACK))),
      fc.constant(JSON.stringify(urlVerificationEvent({ challenge: "c", token: TOKEN }))),
      fc.constant(fake.webhookRequest(aliceSays(ATTACK), { encryptKey: ENCRYPT_KEY }).rawBody),
    );
    await fc.assert(
      fc.asyncProperty(headers, body, async (sentHeaders, sentBody) => {
        const response = await fetch(hook, { method: "POST", headers: sentHeaders, body: sentBody });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }),
      fcParams({ numRuns: 150 }),
    );

    // A genuine signed request with one thing changed: the body, the signature, the timestamp or the nonce.
    const fields = [
      "rawBody",
      "x-lark-signature",
      "x-lark-request-timestamp",
      "x-lark-request-nonce",
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        fc.nat(),
        fc.integer({ min: 0x21, max: 0x7e }),
        async (field, at, code) => {
          const request = fake.webhookRequest(aliceSays(ATTACK), { encryptKey: ENCRYPT_KEY });
          const original = field === "rawBody" ? request.rawBody : (request.headers[field] as string);
          const index = at % original.length;
          const changed = original.slice(0, index) + String.fromCharCode(code) + original.slice(index + 1);
          fc.pre(changed !== original);
          const sent =
            field === "rawBody"
              ? { ...request, rawBody: changed }
              : { ...request, headers: { ...request.headers, [field]: changed } };
          const answer = await sendWebhookRequest(hook, sent);
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
        },
      ),
      fcParams({ numRuns: 100 }),
    );
    await genuine("after the fuzz");
    expect(received).toEqual(["after the fuzz"]);
    expect(watch.errors).toEqual([]);
  }, 60_000);
});
