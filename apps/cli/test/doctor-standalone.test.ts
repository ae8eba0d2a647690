import { startFakeFeishu, startFakeTelegram } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { hostEnv, runDoctorIn, scope } from "./doctor-support.ts";

// `phonework doctor standalone`: the standalone chats where the router would, else on its terminal,
// so its chat checks are the router's, the headless case aside.

describe("doctor standalone: the chat", () => {
  it("no platform configured: the terminal, ✅", async () => {
    const run = await runDoctorIn("standalone", hostEnv());
    expect(run.line("chat")).toBe("✅ chat: this terminal (standalone, no chat platform configured)");
    expect(run.lines.some((line) => line.includes("ADMINS"))).toBe(false);
  });

  it("Feishu configured: its credentials, ALLOWED_USERS and the admin are checked as the router's", async () => {
    const feishu = await startFakeFeishu();
    scope.add(() => feishu.close());
    const env = hostEnv({
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
      ALLOWED_USERS: "ou_alice",
    });
    const run = await runDoctorIn("standalone", env);
    expect(run.line("Feishu")).toBe(
      `✅ Feishu: ${feishu.url} accepts app ${feishu.appId} (a tenant token was issued)`,
    );
    expect(run.line("ALLOWED_USERS")).toBe("✅ ALLOWED_USERS: 1 user");
    expect(run.line("ADMINS")).toBe(
      "✅ ADMINS: not set: the only ALLOWED_USERS entry (ou_alice) is the admin",
    );

    expect(run.line("chat")).toBe("✅ chat: feishu (feishu, ws)");

    // CHAT=terminal serves the terminal beside Feishu: Feishu is still checked.
    const terminal = await runDoctorIn("standalone", { ...env, CHAT: "terminal" });
    expect(terminal.line("chat")).toBe("✅ chat: the terminal (CHAT=terminal) and feishu (feishu, ws)");
    expect(terminal.line("Feishu")).toBe(
      `✅ Feishu: ${feishu.url} accepts app ${feishu.appId} (a tenant token was issued)`,
    );
    expect(terminal.failures).toBe(0);
  });

  it("Telegram configured: the chat is Telegram, not the terminal; its token and the admin are checked", async () => {
    const telegram = await startFakeTelegram();
    scope.add(() => telegram.close());
    const env = hostEnv({
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      ALLOWED_USERS: "4242",
    });
    const run = await runDoctorIn("standalone", env);
    expect(run.line("chat")).toBe("✅ chat: telegram (telegram, polling)");
    expect(run.line("Telegram")).toBe(
      `✅ Telegram: ${telegram.url} accepts the bot token (@${telegram.bot.username})`,
    );
    expect(run.line("ADMINS")).toBe("✅ ADMINS: not set: the only ALLOWED_USERS entry (4242) is the admin");
    expect(run.output).not.toContain(telegram.token);

    // Beside Feishu, a bare ALLOWED_USERS id names neither platform: ❌, as the standalone would not start.
    const feishu = await startFakeFeishu();
    scope.add(() => feishu.close());
    const both = await runDoctorIn("standalone", {
      ...env,
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
    });
    expect(both.line("chat")).toMatch(/^❌ chat: invalid configuration: ALLOWED_USERS: "4242" is ambiguous/);
    expect(both.failures).toBe(1);
  });

  it("a ROUTER_HOST off loopback is ❌ in the config: the standalone's own host could not join", async () => {
    const run = await runDoctorIn("standalone", hostEnv({ ROUTER_HOST: "0.0.0.0" }));
    expect(run.line("config")).toMatch(
      /^❌ config: invalid configuration: ROUTER_HOST: must be a loopback address/,
    );
  });
});
