import { type Clock, ConfigError, type Logger, type SqliteDatabase } from "@phonework/runtime";
import type { RouterConfig } from "../config.ts";
import { AccessControl } from "./access-control.ts";
import type { ChatAdapter } from "./chat-adapter.ts";
import type { FeishuDelivery } from "./feishu/feishu-adapter.ts";
import { SeenEvents } from "./feishu/seen-events.ts";

/** What CHAT resolves to on this machine. */
export type ChatChoice = "feishu" | "terminal" | "none";

/**
 * CHAT=auto picks Feishu when it is configured, else the terminal only when stdin is one: under
 * systemd, nohup or `docker run -d` stdin is empty, and chatting on it would stop the router.
 */
export function chooseChat(config: RouterConfig, stdinIsTerminal: boolean): ChatChoice {
  if (config.CHAT === "terminal" || config.CHAT === "none") return config.CHAT;
  if (config.FEISHU_APP_ID) return "feishu";
  return stdinIsTerminal ? "terminal" : "none";
}

/**
 * The chat adapters CHAT asks for: Feishu, the terminal (built lazily: it owns stdin), or none
 * (headless: hosts connect, nobody chats; one line says how to change that).
 * `db` is the router's database (router.db), where Feishu remembers the events it has handled.
 * The Feishu SDK is loaded only here, when Feishu is chosen: it is most of a router's memory
 * and start-up time, and a router without Feishu never needs it.
 */
export async function selectChatAdapters(
  config: RouterConfig,
  deps: {
    logger: Logger;
    clock: Clock;
    db: SqliteDatabase;
    stdinIsTerminal: boolean;
    terminal: () => ChatAdapter;
  },
): Promise<ChatAdapter[]> {
  const choice = chooseChat(config, deps.stdinIsTerminal);
  if (choice !== "feishu" && config.FEISHU_APP_ID)
    deps.logger.warn(`FEISHU_APP_ID is set but CHAT=${config.CHAT}: Feishu is not served`);
  if (choice === "terminal") return [deps.terminal()];
  if (choice === "none") {
    logHeadless(config, deps.logger);
    return [];
  }
  // chooseChat picks Feishu only with FEISHU_APP_ID set; naming it here convinces the type checker.
  if (!config.FEISHU_APP_ID || !config.FEISHU_APP_SECRET)
    throw new ConfigError("invalid configuration:\n  FEISHU_APP_SECRET: is required with FEISHU_APP_ID");
  const access = new AccessControl(config.ALLOWED_USERS);
  if (access.open) deps.logger.warn("ALLOWED_USERS=* : the bot answers anyone who can message it");
  else if (access.size === 0)
    deps.logger.warn("ALLOWED_USERS is empty: every Feishu user will be refused (deny by default)");
  const { createFeishuAdapter } = await import("./feishu/feishu-adapter.ts");
  return [
    createFeishuAdapter({
      appId: config.FEISHU_APP_ID,
      appSecret: config.FEISHU_APP_SECRET,
      domain: config.FEISHU_DOMAIN,
      delivery: feishuDelivery(config),
      access,
      seen: new SeenEvents(deps.db, config.SEEN_EVENTS_TTL_S * 1000, () => deps.clock.now()),
      retry: { attempts: 5, baseMs: 500, maxMs: 30_000 },
      clock: deps.clock,
      logger: deps.logger.child({ component: "feishu" }),
    }),
  ];
}

/** Asked for (CHAT=none) it is news; fallen into (CHAT=auto) it is likely a missing setting. */
function logHeadless(config: RouterConfig, logger: Logger): void {
  const line =
    "no chat: the router runs headless (hosts can connect, nobody can chat). To chat, set " +
    "FEISHU_APP_ID and FEISHU_APP_SECRET, or CHAT=terminal to chat on stdin";
  if (config.CHAT === "none") logger.info({ CHAT: config.CHAT }, line);
  else logger.warn({ CHAT: config.CHAT, stdin: "not a terminal" }, line);
}

function feishuDelivery(config: RouterConfig): FeishuDelivery {
  if (config.FEISHU_MODE === "ws") return { mode: "ws" };
  const { FEISHU_ENCRYPT_KEY: encryptKey, FEISHU_VERIFICATION_TOKEN: verificationToken } = config;
  // The config schema refuses webhook mode without both; this only convinces the type checker.
  if (!encryptKey || !verificationToken)
    throw new ConfigError(
      "invalid configuration:\n  FEISHU_ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: both are required with FEISHU_MODE=webhook",
    );
  return { mode: "webhook", encryptKey, verificationToken, maxAgeMs: config.WEBHOOK_MAX_AGE_S * 1000 };
}
