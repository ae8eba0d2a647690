import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeFeishu, startFakeTelegram, tlsFixture } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { runDoctorIn, scope, startRouter } from "./doctor-support.ts";

// `phonework doctor router`: the port (bound for a moment, or a router already there), the chat
// platforms' credentials against the fake Feishu and Telegram servers, and who the admins are.

const routerEnv = (extra: Record<string, string> = {}) => ({
  DATA_DIR: scope.tempDir(),
  ROUTER_HOST: "127.0.0.1",
  ROUTER_PORT: "0",
  CHAT: "none",
  ...extra,
});

/** A plain HTTP server on a loopback port: "another program" holding it. */
async function otherProgram(): Promise<number> {
  const server = createServer((_req, res) => res.end("hello from something else"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  scope.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** A port that was free a moment ago (bound and released by the OS's choice, not guessed). */
async function releasedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("doctor router: the port", () => {
  it("free is ✅; a router already serving there is ✅ saying so; another program is ❌", async () => {
    const free = await releasedPort();
    expect((await runDoctorIn("router", routerEnv({ ROUTER_PORT: String(free) }))).line("port")).toBe(
      `✅ port: 127.0.0.1:${free} is free`,
    );

    const router = await startRouter();
    const port = new URL(router.nodeUrl).port;
    expect((await runDoctorIn("router", routerEnv({ ROUTER_PORT: port }))).line("port")).toMatch(
      new RegExp(`^✅ port: 127\\.0\\.0\\.1:${port}: a router is already serving here \\(.+\\)$`),
    );

    const taken = await otherProgram();
    const run = await runDoctorIn("router", routerEnv({ ROUTER_PORT: String(taken) }));
    expect(run.line("port")).toBe(
      `❌ port: 127.0.0.1:${taken} is taken by another program → stop it, or set ROUTER_PORT to a free port`,
    );
    expect(run.failures).toBe(1);
  });

  it("a router serving TLS itself is recognised too, and its certificate and key are checked", async () => {
    const tls = { TLS_CERT_FILE: tlsFixture("router.pem"), TLS_KEY_FILE: tlsFixture("router.key") };
    const router = await startRouter(tls);
    const run = await runDoctorIn("router", routerEnv({ ROUTER_PORT: new URL(router.nodeUrl).port, ...tls }));
    expect(run.line("port")).toContain("a router is already serving here");
    expect(run.line("TLS certificate")).toMatch(
      /^✅ TLS certificate: .*router\.pem \(.*\), valid until \d{4}/,
    );

    const mismatched = await runDoctorIn(
      "router",
      routerEnv({ TLS_CERT_FILE: tlsFixture("router.pem"), TLS_KEY_FILE: tlsFixture("other.key") }),
    );
    expect(mismatched.line("TLS certificate")).toMatch(
      /^❌ TLS certificate: TLS_KEY_FILE .*other\.key is not the key of/,
    );
  });
});

describe("doctor router: the chat platform", () => {
  it("Feishu credentials the platform accepts are ✅; a wrong secret is ❌ and never printed", async () => {
    const feishu = await startFakeFeishu();
    scope.add(() => feishu.close());
    const env = routerEnv({
      CHAT: "auto",
      FEISHU_APP_ID: feishu.appId,
      FEISHU_DOMAIN: feishu.url,
      ALLOWED_USERS: "ou_alice",
    });
    const good = await runDoctorIn("router", { ...env, FEISHU_APP_SECRET: feishu.appSecret });
    expect(good.line("chat")).toBe("✅ chat: feishu (feishu, ws)");
    expect(good.line("node signatures")).toBe(
      "✅ node signatures: hosts' Ed25519 handshakes are checked by libsodium (sodium-native)",
    );
    expect(good.line("Feishu")).toBe(
      `✅ Feishu: ${feishu.url} accepts app ${feishu.appId} (a tenant token was issued)`,
    );
    expect(good.line("ALLOWED_USERS")).toBe("✅ ALLOWED_USERS: 1 user");
    expect(good.line("ADMINS")).toBe(
      "✅ ADMINS: not set: the only ALLOWED_USERS entry (ou_alice) is the admin",
    );
    expect(good.output).not.toContain(feishu.appSecret);
    for (const token of feishu.issuedTokens()) expect(good.output).not.toContain(token);

    const wrong = await runDoctorIn("router", { ...env, FEISHU_APP_SECRET: "wrong-secret-0123" });
    expect(wrong.line("Feishu")).toMatch(
      new RegExp(
        `^❌ Feishu: ${feishu.url} refuses app ${feishu.appId} \\(code \\d+: .+\\) → copy App ID and App Secret again`,
      ),
    );
    expect(wrong.output).not.toContain("wrong-secret-0123");
    expect(wrong.failures).toBe(1);

    const offline = await runDoctorIn(
      "router",
      { ...env, FEISHU_APP_SECRET: feishu.appSecret },
      { offline: true },
    );
    expect(offline.line("Feishu")).toBe("⚠️ Feishu: skipped (--offline)");
  });

  it("no chat platform is ⚠️ headless; no ADMINS and no single ALLOWED_USERS is ⚠️ how to set it", async () => {
    const run = await runDoctorIn("router", routerEnv({ CHAT: "auto", ALLOWED_USERS: "ou_a,ou_b" }));
    expect(run.line("chat")).toBe(
      "⚠️ chat: no chat platform configured: headless as a service (hosts connect, nobody chats), the terminal when run on one → set TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN (+ SLACK_APP_TOKEN), DISCORD_BOT_TOKEN, or FEISHU_APP_ID and FEISHU_APP_SECRET, to chat on that platform, or CHAT=terminal to chat on stdin",
    );
    expect(run.line("ADMINS")).toMatch(
      /^⚠️ ADMINS: not set: nobody can pair hosts .* → set ADMINS to your chat user id/,
    );
    expect(run.failures).toBe(0);

    const withAdmins = await runDoctorIn("router", routerEnv({ ADMINS: "ou_me" }));
    expect(withAdmins.line("ADMINS")).toBe("✅ ADMINS: ou_me");
  });

  it("a Telegram bot token the Bot API accepts is ✅ naming the bot; a wrong one is ❌ and never printed", async () => {
    const telegram = await startFakeTelegram();
    scope.add(() => telegram.close());
    const env = routerEnv({ CHAT: "auto", TELEGRAM_API_ROOT: telegram.url, ALLOWED_USERS: "4242" });
    const good = await runDoctorIn("router", { ...env, TELEGRAM_BOT_TOKEN: telegram.token });
    expect(good.line("chat")).toBe("✅ chat: telegram (telegram, polling)");
    expect(good.line("Telegram")).toBe(
      `✅ Telegram: ${telegram.url} accepts the bot token (@${telegram.bot.username})`,
    );
    expect(good.line("ALLOWED_USERS")).toBe("✅ ALLOWED_USERS: 1 user");
    expect(good.output).not.toContain(telegram.token);

    const wrongToken = `${telegram.bot.id}:AAwrongwrongwrongwrongwrongwrongwrong`;
    const wrong = await runDoctorIn("router", { ...env, TELEGRAM_BOT_TOKEN: wrongToken });
    expect(wrong.line("Telegram")).toBe(
      `❌ Telegram: ${telegram.url} refuses the bot token (401: Unauthorized) → copy the bot's token from @BotFather again`,
    );
    expect(wrong.output).not.toContain(wrongToken);
    expect(wrong.failures).toBe(1);

    const offline = await runDoctorIn(
      "router",
      { ...env, TELEGRAM_BOT_TOKEN: telegram.token },
      { offline: true },
    );
    expect(offline.line("Telegram")).toBe("⚠️ Telegram: skipped (--offline)");
  });

  it("Telegram is asked through the router's own client: a 429 is waited out as at the router's start; nothing listening is ❌", async () => {
    const telegram = await startFakeTelegram();
    scope.add(() => telegram.close());
    const env = routerEnv({ CHAT: "auto", TELEGRAM_BOT_TOKEN: telegram.token, ALLOWED_USERS: "4242" });
    // Flood control on the first getMe: the router's grammY client retries it after retry_after.
    telegram.failNext("getMe", { status: 429, retryAfter: 1 });
    const flooded = await runDoctorIn(
      "router",
      { ...env, TELEGRAM_API_ROOT: telegram.url },
      { timeoutMs: 5_000 },
    );
    expect(flooded.line("Telegram")).toBe(
      `✅ Telegram: ${telegram.url} accepts the bot token (@${telegram.bot.username})`,
    );
    expect(telegram.callsOf("getMe").map((call) => call.status)).toEqual([429, 200]);

    const gone = `http://127.0.0.1:${await releasedPort()}`;
    const unreachable = await runDoctorIn("router", { ...env, TELEGRAM_API_ROOT: `${gone}/` });
    expect(unreachable.line("Telegram")).toBe(
      `❌ Telegram: cannot reach ${gone} (ECONNREFUSED) → check TELEGRAM_API_ROOT and this machine's network`,
    );
    expect(unreachable.output).not.toContain(telegram.token);
  });

  it("Feishu is asked through the router's Lark client: nothing listening at FEISHU_DOMAIN is ❌ naming why", async () => {
    const gone = `http://127.0.0.1:${await releasedPort()}`;
    const run = await runDoctorIn(
      "router",
      routerEnv({
        CHAT: "auto",
        FEISHU_APP_ID: "cli_gone",
        FEISHU_APP_SECRET: "secret-never-shown-42",
        FEISHU_DOMAIN: gone,
        ALLOWED_USERS: "ou_alice",
      }),
    );
    expect(run.line("Feishu")).toBe(
      `❌ Feishu: cannot reach ${gone} (ECONNREFUSED) → check FEISHU_DOMAIN and this machine's network`,
    );
    expect(run.output).not.toContain("secret-never-shown-42");
  });

  it("Feishu and Telegram both: the chat line names both and each is checked; a bare ALLOWED_USERS id is ❌", async () => {
    const [feishu, telegram] = await Promise.all([startFakeFeishu(), startFakeTelegram()]);
    scope.add(() => feishu.close());
    scope.add(() => telegram.close());
    const env = routerEnv({
      CHAT: "auto",
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
    });
    const both = await runDoctorIn("router", { ...env, ALLOWED_USERS: "feishu:ou_alice,telegram:4242" });
    expect(both.line("chat")).toBe("✅ chat: feishu (feishu, ws), telegram (telegram, polling)");
    expect(both.line("Feishu")).toMatch(/^✅ Feishu: .* accepts app/);
    expect(both.line("Telegram")).toMatch(/^✅ Telegram: .* accepts the bot token/);
    expect(both.failures).toBe(0);

    // With two platforms a bare id names neither: the router would refuse to start.
    const bare = await runDoctorIn("router", { ...env, ALLOWED_USERS: "ou_alice" });
    expect(bare.line("chat")).toMatch(
      /^❌ chat: invalid configuration: ALLOWED_USERS: "ou_alice" is ambiguous with several chat adapters \(feishu, telegram\); write feishu:ou_alice or telegram:ou_alice/,
    );
    expect(bare.lines.some((line) => line.includes("Telegram:"))).toBe(false); // not asked: nothing would start
  });

  it("CHAT=none with a platform configured is ⚠️ saying it is not served", async () => {
    const telegram = await startFakeTelegram();
    scope.add(() => telegram.close());
    const run = await runDoctorIn(
      "router",
      routerEnv({ CHAT: "none", TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.url }),
    );
    expect(run.line("chat")).toBe(
      "⚠️ chat: none (CHAT=none): telegram (telegram, polling) configured but not served → unset CHAT (auto) to serve them",
    );
    expect(run.output).not.toContain(telegram.token);
  });
});
