import { type Check, fail, ok, skipped, warn } from "../check.ts";
import { checkFeishuCredentials } from "./feishu-credentials.ts";

// Where the router (or the standalone) chats (CHAT, as it chooses it) and, for Feishu, whether the
// platform accepts the app's credentials and who may talk to the bot.

const HEADLESS_FIX =
  "set FEISHU_APP_ID and FEISHU_APP_SECRET to chat on Feishu, or CHAT=terminal to chat on stdin";

export interface ChatSettings {
  CHAT: "auto" | "terminal" | "none";
  FEISHU_APP_ID?: string | undefined;
  FEISHU_APP_SECRET?: string | undefined;
  FEISHU_DOMAIN: string;
  ALLOWED_USERS: readonly string[];
}

export async function checkRouterChat(
  config: ChatSettings,
  options: { offline: boolean; fetch: typeof fetch; timeoutMs: number },
): Promise<Check[]> {
  const unused = config.FEISHU_APP_ID
    ? [
        warn(
          "Feishu",
          `FEISHU_APP_ID is set but CHAT=${config.CHAT}: Feishu is not served`,
          "unset CHAT (auto) to chat on Feishu",
        ),
      ]
    : [];
  if (config.CHAT === "terminal") return [ok("chat", "the terminal (CHAT=terminal)"), ...unused];
  if (config.CHAT === "none")
    return [
      warn("chat", "none (CHAT=none): headless, hosts connect but nobody chats", HEADLESS_FIX),
      ...unused,
    ];
  if (!config.FEISHU_APP_ID)
    return [
      warn(
        "chat",
        "no chat platform configured: headless as a service (hosts connect, nobody chats), the terminal when run on one",
        HEADLESS_FIX,
      ),
    ];
  const { FEISHU_APP_ID: appId, FEISHU_APP_SECRET: appSecret } = config;
  const credentials = !appSecret
    ? fail(
        "Feishu",
        "FEISHU_APP_SECRET is not set (FEISHU_APP_ID is)",
        "set FEISHU_APP_SECRET from the Feishu developer console",
      )
    : options.offline
      ? skipped("Feishu", "--offline")
      : await checkFeishuCredentials({ appId, appSecret, domain: config.FEISHU_DOMAIN }, options);
  return [credentials, allowedUsers(config.ALLOWED_USERS)];
}

/** Standalone chats where the router would, except that with no platform it chats on its terminal. */
export async function checkStandaloneChat(
  config: ChatSettings,
  options: { offline: boolean; fetch: typeof fetch; timeoutMs: number },
): Promise<Check[]> {
  if (config.CHAT === "auto" && !config.FEISHU_APP_ID)
    return [ok("chat", "this terminal (standalone, no chat platform configured)")];
  return checkRouterChat(config, options);
}

function allowedUsers(users: readonly string[]): Check {
  if (users.includes("*"))
    return warn(
      "ALLOWED_USERS",
      "* : the bot answers anyone who can message it",
      "list the open_ids allowed, comma-separated",
    );
  if (users.length === 0)
    return warn(
      "ALLOWED_USERS",
      "empty: every Feishu user is refused (deny by default)",
      "set ALLOWED_USERS to the open_ids allowed to use the bot (ou_…), comma-separated",
    );
  return ok("ALLOWED_USERS", `${users.length} user${users.length === 1 ? "" : "s"}`);
}
