import { startFakeFeishu, startFakeOpenAI, startFakeTelegram } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { phonework, SECRET, scope, startRouter } from "./support.ts";

// `phonework doctor` from the install: the chat platforms asked through the bundled clients the
// router uses (grammY, the Lark SDK), so a doctor that passes means a router that can talk; a host's
// checks against an installed router. The exit code is the number of ❌.

async function doctor(args: string[], env: Record<string, string>) {
  const child = phonework(["doctor", ...args], env);
  const { code } = await child.exited;
  const lines = child.stdout().split("\n").filter(Boolean);
  return {
    code,
    lines,
    output: child.stdout() + child.stderr(),
    failed: lines.filter((line) => line.startsWith("❌")),
  };
}

describe("phonework doctor, installed", () => {
  it("router: Telegram and Feishu accept their credentials: exit 0; a bad bot token is one clear ❌, never printed", async () => {
    const [telegram, feishu] = await Promise.all([startFakeTelegram(), startFakeFeishu()]);
    scope.add(() => telegram.close());
    scope.add(() => feishu.close());
    const env = {
      DATA_DIR: scope.tempDir(),
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      TELEGRAM_API_ROOT: telegram.url,
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
      ALLOWED_USERS: "feishu:ou_alice,telegram:4242",
      ADMINS: "telegram:4242",
    };
    const good = await doctor(["router"], { ...env, TELEGRAM_BOT_TOKEN: telegram.token });
    expect(good.failed).toEqual([]);
    expect(good.code).toBe(0);
    // The checkpoint worker thread loads the package's better-sqlite3 (no load needed to start it here).
    expect(good.lines).toContain(
      "✅ checkpoints: off the main thread (a worker thread loaded better-sqlite3 and checkpointed a test database)",
    );
    // The router checks hosts' handshakes with the package's optional sodium-native.
    expect(good.lines).toContain(
      "✅ node signatures: hosts' Ed25519 handshakes are checked by libsodium (sodium-native)",
    );
    expect(good.lines).toContain(
      `✅ Telegram: ${telegram.url} accepts the bot token (@${telegram.bot.username})`,
    );
    expect(good.lines).toContain(
      `✅ Feishu: ${feishu.url} accepts app ${feishu.appId} (a tenant token was issued)`,
    );
    expect(good.output).not.toContain(telegram.token);
    expect(good.output).not.toContain(feishu.appSecret);

    const badToken = `${telegram.bot.id}:AAbadbadbadbadbadbadbadbadbadbadbad`;
    const bad = await doctor(["router"], { ...env, TELEGRAM_BOT_TOKEN: badToken });
    expect(bad.failed).toEqual([
      `❌ Telegram: ${telegram.url} refuses the bot token (401: Unauthorized) → copy the bot's token from @BotFather again`,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.output).not.toContain(badToken);
  });

  it("host: against an installed router, with a model: the router, the node key and the model pass: exit 0", async () => {
    const router = await startRouter({ CHAT: "none" });
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const dir = scope.tempDir();
    const run = await doctor(["host"], {
      ROUTER_URL: router.nodeUrl,
      ROUTER_SECRET: SECRET,
      NODE_ID: "box",
      DATA_DIR: dir,
      WORKING_DIR: dir,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-installed",
    });
    expect(run.failed).toEqual([]);
    expect(run.code).toBe(0);
    for (const title of ["router", "node key", "model"])
      expect(
        run.lines.find((line) => line.startsWith(`✅ ${title}:`)),
        run.lines.join("\n"),
      ).toBeDefined();
  });
});
