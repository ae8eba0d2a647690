import { join } from "node:path";
import { type Clock, ConfigError, type Logger } from "@phonework/runtime";
import type { RouterConfig } from "../config.ts";
import { AccessControl } from "./access-control.ts";
import type { ChatAdapter } from "./chat-adapter.ts";
import { createFeishuAdapter } from "./feishu/feishu-adapter.ts";
import { SeenEvents } from "./feishu/seen-events.ts";

/** Feishu when it is configured; otherwise the terminal (built lazily: it owns stdin). */
export function selectChatAdapters(
  config: RouterConfig,
  deps: { logger: Logger; clock: Clock; terminal: () => ChatAdapter },
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
      mode: config.FEISHU_MODE,
      encryptKey: config.FEISHU_ENCRYPT_KEY,
      verificationToken: config.FEISHU_VERIFICATION_TOKEN,
      access,
      seen: SeenEvents.open(
        join(config.DATA_DIR, "router", "feishu-seen.json"),
        config.SEEN_EVENTS_TTL_S * 1000,
        () => deps.clock.now(),
      ),
      retry: { attempts: 5, baseMs: 500, maxMs: 30_000 },
      logger: deps.logger.child({ component: "feishu" }),
    }),
  ];
}
