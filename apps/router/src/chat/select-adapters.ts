import { type Clock, ConfigError, type Logger, type SqliteDatabase } from "@phonework/runtime";
import type { RouterConfig } from "../config.ts";
import { AccessControl } from "./access-control.ts";
import type { ChatAdapter } from "./chat-adapter.ts";
import { createFeishuAdapter, type FeishuDelivery } from "./feishu/feishu-adapter.ts";
import { SeenEvents } from "./feishu/seen-events.ts";

/**
 * Feishu when it is configured; otherwise the terminal (built lazily: it owns stdin).
 * `db` is the router's database (router.db), where Feishu remembers the events it has handled.
 */
export function selectChatAdapters(
  config: RouterConfig,
  deps: { logger: Logger; clock: Clock; db: SqliteDatabase; terminal: () => ChatAdapter },
): ChatAdapter[] {
  if (!config.FEISHU_APP_ID) return [deps.terminal()];
  if (!config.FEISHU_APP_SECRET)
    throw new ConfigError("invalid configuration:\n  FEISHU_APP_SECRET: is required with FEISHU_APP_ID");
  const access = new AccessControl(config.ALLOWED_USERS);
  if (access.open) deps.logger.warn("ALLOWED_USERS=* : the bot answers anyone who can message it");
  else if (access.size === 0)
    deps.logger.warn("ALLOWED_USERS is empty: every Feishu user will be refused (deny by default)");
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
