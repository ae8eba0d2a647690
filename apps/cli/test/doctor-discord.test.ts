import { startFakeDiscord } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { runDoctorIn, scope } from "./doctor-support.ts";

// `phonework doctor` on a router with Discord: the token asked about with GET /users/@me on the
// fake Discord (DISCORD_API_URL); a wrong one is ❌ and never printed.

describe("doctor, Discord", () => {
  it("a token Discord accepts is ✅ naming the bot; a refused one is ❌ with the fix; --offline skips it", async () => {
    const discord = await startFakeDiscord();
    scope.add(() => discord.close());
    const env = {
      DATA_DIR: scope.tempDir(),
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      CHAT: "auto",
      DISCORD_API_URL: discord.apiUrl,
      ALLOWED_USERS: "4242",
    };
    const good = await runDoctorIn("router", { ...env, DISCORD_BOT_TOKEN: discord.token });
    expect(good.line("chat")).toBe("✅ chat: discord (discord, gateway)");
    expect(good.line("Discord")).toBe(
      `✅ Discord: ${discord.apiUrl} accepts the bot token (${discord.bot.username})`,
    );
    expect(good.output).not.toContain(discord.token);

    const wrongToken = `${discord.token.slice(0, -4)}AAAA`;
    const wrong = await runDoctorIn("router", { ...env, DISCORD_BOT_TOKEN: wrongToken });
    expect(wrong.line("Discord")).toBe(
      `❌ Discord: ${discord.apiUrl} refuses the bot token (HTTP 401) → copy the bot's token from the Discord developer portal again (Bot → Reset Token)`,
    );
    expect(wrong.output).not.toContain(wrongToken);
    const offline = await runDoctorIn(
      "router",
      { ...env, DISCORD_BOT_TOKEN: discord.token },
      { offline: true },
    );
    expect(offline.line("Discord")).toBe("⚠️ Discord: skipped (--offline)");
  });
});
