import { startFakeFeishu } from "@phonework/testkit";
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

    const terminal = await runDoctorIn("standalone", { ...env, CHAT: "terminal" });
    expect(terminal.line("chat")).toBe("✅ chat: the terminal (CHAT=terminal)");
    expect(terminal.line("Feishu")).toMatch(/^⚠️ Feishu: FEISHU_APP_ID is set but CHAT=terminal/);
  });

  it("a ROUTER_HOST off loopback is ❌ in the config: the standalone's own host could not join", async () => {
    const run = await runDoctorIn("standalone", hostEnv({ ROUTER_HOST: "0.0.0.0" }));
    expect(run.line("config")).toMatch(
      /^❌ config: invalid configuration: ROUTER_HOST: must be a loopback address/,
    );
  });
});
