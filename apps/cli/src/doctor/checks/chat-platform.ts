import { type AdapterConfig, type AdapterSpec, adapterSpecs } from "@phonework/router";
import { ConfigError } from "@phonework/runtime";
import { type Check, fail, ok, oneLine, skipped, warn } from "./check.ts";
import { checkDiscordToken } from "./discord-token.ts";
import { checkFeishuCredentials } from "./feishu-credentials.ts";
import { checkSlackToken } from "./slack-token.ts";
import { checkTelegramToken } from "./telegram-token.ts";

// Where the router (or the standalone) chats (CHAT, as it chooses it): the configured platforms
// (Feishu, Telegram, Slack, Discord, named adapters), whether each accepts its credentials, and who may talk to them.

const HEADLESS_FIX =
  "set TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN (+ SLACK_APP_TOKEN), DISCORD_BOT_TOKEN, or FEISHU_APP_ID and FEISHU_APP_SECRET, to chat on that platform, or CHAT=terminal to chat on stdin";

export type ChatSettings = AdapterConfig & { CHAT: "auto" | "terminal" | "none" };

interface ChatCheckOptions {
  offline: boolean;
  timeoutMs: number;
}

export async function checkRouterChat(config: ChatSettings, options: ChatCheckOptions): Promise<Check[]> {
  const platforms = configuredPlatforms(config);
  if (!Array.isArray(platforms)) return [platforms];
  const served = platforms.map(describe).join(", ");
  if (config.CHAT === "none")
    return platforms.length > 0
      ? [
          warn(
            "chat",
            `none (CHAT=none): ${served} configured but not served`,
            "unset CHAT (auto) to serve them",
          ),
        ]
      : [warn("chat", "none (CHAT=none): headless, hosts connect but nobody chats", HEADLESS_FIX)];
  if (config.CHAT === "terminal" && platforms.length === 0)
    return [ok("chat", "the terminal (CHAT=terminal)")];
  if (platforms.length === 0)
    return [
      warn(
        "chat",
        "no chat platform configured: headless as a service (hosts connect, nobody chats), the terminal when run on one",
        HEADLESS_FIX,
      ),
    ];
  const chat =
    config.CHAT === "terminal"
      ? ok("chat", `the terminal (CHAT=terminal) and ${served}`)
      : ok("chat", served);
  const credentials = await Promise.all(platforms.map((spec) => checkCredentials(spec, options)));
  return [chat, ...credentials, allowedUsers(config.ALLOWED_USERS)];
}

/** Standalone chats where the router would, except that with no platform it chats on its terminal. */
export async function checkStandaloneChat(config: ChatSettings, options: ChatCheckOptions): Promise<Check[]> {
  const platforms = configuredPlatforms(config);
  if (config.CHAT === "auto" && Array.isArray(platforms) && platforms.length === 0)
    return [ok("chat", "this terminal (standalone, no chat platform configured)")];
  return checkRouterChat(config, options);
}

/** The platforms the config makes, or ❌ saying why the router would refuse to start with them. */
function configuredPlatforms(config: ChatSettings): AdapterSpec[] | Check {
  try {
    return adapterSpecs(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail("chat", oneLine(error.message), "fix the chat settings named");
  }
}

/** As the standalone's start-up line names it: `feishu (feishu, ws)`. */
function describe(spec: AdapterSpec): string {
  return `${spec.name} (${spec.type}, ${spec.settings.mode})`;
}

/** "Feishu", "Telegram"; a named adapter's name too when it is not the platform's ("Telegram tg"). */
function platformTitle(spec: AdapterSpec): string {
  const platform = { feishu: "Feishu", slack: "Slack", discord: "Discord", telegram: "Telegram" }[spec.type];
  return spec.name === spec.type ? platform : `${platform} ${spec.name}`;
}

async function checkCredentials(spec: AdapterSpec, options: ChatCheckOptions): Promise<Check> {
  const title = platformTitle(spec);
  if (options.offline) return skipped(title, "--offline");
  if (spec.type === "telegram") return checkTelegramToken(title, spec.settings, options);
  if (spec.type === "slack") return checkSlackToken(title, spec.settings, options);
  if (spec.type === "discord") return checkDiscordToken(title, spec.settings, options);
  return checkFeishuCredentials(spec.settings, options, title);
}

function allowedUsers(users: readonly string[]): Check {
  if (users.includes("*"))
    return warn(
      "ALLOWED_USERS",
      "* : the bots answer anyone who can message them",
      "list the user ids allowed, comma-separated",
    );
  if (users.length === 0)
    return warn(
      "ALLOWED_USERS",
      "empty: every chat user who is not an admin is refused (deny by default)",
      "set ALLOWED_USERS to the user ids allowed to use the bot (Feishu ou_…, Telegram numeric ids), comma-separated",
    );
  return ok("ALLOWED_USERS", `${users.length} user${users.length === 1 ? "" : "s"}`);
}
