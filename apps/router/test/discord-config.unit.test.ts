import { ConfigError } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { adapterSpecs } from "../src/config/adapter-specs.ts";
import { RouterConfigSchema } from "../src/config/router-config.ts";

// Discord in the config: the flat DISCORD_BOT_TOKEN (an adapter named discord), named adapters of
// type discord, one adapter per bot, and tokens that are not bot tokens refused with the key named.

/** A token of bot `id`: its first part is the id in base64, as Discord's are. */
const tokenOf = (id: string, secret = "s".repeat(30)) =>
  `${Buffer.from(id).toString("base64url")}.GhIjKl.${secret}`;
const BOT = "1200000000000000001";

const specs = (keys: Record<string, unknown>) => adapterSpecs(RouterConfigSchema.parse(keys));

function problems(keys: Record<string, unknown>): string {
  const parsed = RouterConfigSchema.safeParse(keys);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n");
  try {
    adapterSpecs(parsed.data);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a problem");
}

describe("Discord config", () => {
  it("DISCORD_BOT_TOKEN makes an adapter named discord; DISCORD_API_URL points it elsewhere; users are discord:<id>", () => {
    expect(
      specs({
        DISCORD_BOT_TOKEN: tokenOf(BOT),
        DISCORD_API_URL: "http://127.0.0.1:9/api",
        ALLOWED_USERS: "42",
      }),
    ).toEqual([
      {
        name: "discord",
        type: "discord",
        settings: { mode: "gateway", botToken: tokenOf(BOT), apiUrl: "http://127.0.0.1:9/api" },
        access: { admins: ["discord:42"], dm: ["discord:42"] },
      },
    ]);
  });

  it("named adapters of type discord sit beside the flat ones; the same bot twice is refused, naming both keys", () => {
    const named = specs({
      TELEGRAM_BOT_TOKEN: "123:abc",
      adapters: {
        team: { type: "discord", bot_token: tokenOf("99887766554433"), admins: ["7"], dm: "everyone" },
      },
    });
    expect(named.map((spec) => [spec.name, spec.type])).toEqual([
      ["telegram", "telegram"],
      ["team", "discord"],
    ]);
    expect(named[1]?.access).toEqual({ admins: ["team:7"], dm: "everyone" });
    expect(
      problems({
        DISCORD_BOT_TOKEN: tokenOf(BOT),
        adapters: { again: { type: "discord", bot_token: tokenOf(BOT, "t".repeat(30)) } },
      }),
    ).toContain(
      "adapters.again.bot_token: is the same discord bot as DISCORD_BOT_TOKEN: one adapter per bot",
    );
  });

  it("refuses what is not a bot token, and unknown keys of a discord adapter", () => {
    expect(problems({ DISCORD_BOT_TOKEN: "1200000000000000001" })).toContain(
      "DISCORD_BOT_TOKEN: must be a bot token from the Discord developer portal",
    );
    expect(
      problems({ adapters: { d: { type: "discord", bot_token: tokenOf(BOT), mode: "webhook" } } }),
    ).toContain("unknown key mode (a discord adapter takes type, bot_token, api_url, admins, dm)");
    expect(problems({ adapters: { d: { type: "discord" } } })).toContain("adapters.d.bot_token: is required");
    expect(specs({ DISCORD_BOT_TOKEN: "" })).toEqual([]);
  });
});
