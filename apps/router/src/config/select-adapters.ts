import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import type { FeishuDelivery } from "../platforms/feishu/feishu-adapter.ts";
import type { PlatformAdapter } from "../platforms/platform-adapter.ts";
import type { SlackMode } from "../platforms/slack/slack-adapter.ts";
import { SeenEvents } from "../storage/seen-events.ts";
import { accessWarning } from "./access-spec.ts";
import type { FeishuSettings, SlackSettings, TelegramSettings } from "./adapter-candidates.ts";
import { type AdapterSpec, adapterSpecs } from "./adapter-specs.ts";
import type { RouterConfig } from "./router-config.ts";

/** What CHAT resolves to on this machine: the configured platforms, and whether the terminal too. */
export interface ChatChoice {
  platforms: AdapterSpec[];
  terminal: boolean;
}

/**
 * auto: every configured platform; with none, the terminal only when stdin is one (under systemd,
 * nohup or `docker run -d` stdin is empty, and chatting on it would stop the router).
 * terminal: the terminal, beside any configured platform. none: headless.
 */
export function chooseChat(config: RouterConfig, stdinIsTerminal: boolean): ChatChoice {
  if (config.CHAT === "none") return { platforms: [], terminal: false };
  const platforms = adapterSpecs(config);
  if (config.CHAT === "terminal") return { platforms, terminal: true };
  return { platforms, terminal: platforms.length === 0 && stdinIsTerminal };
}

/**
 * The chat adapters CHAT asks for: each configured platform, the terminal (built lazily: it owns
 * stdin), or none (headless: hosts connect, nobody chats; one line says how to change that).
 * `db` is router.db, where a webhook remembers the events it has seen. Each platform's SDK is
 * loaded only here, when that platform is configured: the Feishu SDK is most of a router's memory
 * and start-up time, and a router without Feishu never needs it.
 */
export async function selectChatAdapters(
  config: RouterConfig,
  deps: {
    logger: Logger;
    clock: Clock;
    db: SqliteDatabase;
    stdinIsTerminal: boolean;
    terminal: () => PlatformAdapter;
  },
): Promise<PlatformAdapter[]> {
  const choice = chooseChat(config, deps.stdinIsTerminal);
  if (config.CHAT === "none" && adapterSpecs(config).length > 0)
    deps.logger.warn("chat platforms are configured but CHAT=none: none is served");
  const adapters: PlatformAdapter[] = [];
  for (const spec of choice.platforms) {
    const warning = accessWarning(spec);
    if (warning) deps.logger.warn({ adapter: spec.name }, warning);
    adapters.push(await createPlatformAdapter(spec, config, deps));
  }
  if (choice.terminal) adapters.push(deps.terminal());
  if (adapters.length === 0) logHeadless(config, deps.logger);
  return adapters;
}

async function createPlatformAdapter(
  spec: AdapterSpec,
  config: RouterConfig,
  deps: { logger: Logger; clock: Clock; db: SqliteDatabase },
): Promise<PlatformAdapter> {
  const logger = deps.logger.child({ component: spec.type, adapter: spec.name });
  if (spec.type === "telegram") {
    const { createTelegramAdapter } = await import("../platforms/telegram/telegram-adapter.ts");
    return createTelegramAdapter({
      name: spec.name,
      token: spec.settings.botToken,
      ...(spec.settings.apiRoot ? { apiRoot: spec.settings.apiRoot } : {}),
      mode: telegramMode(spec.settings),
      logger,
    });
  }
  if (spec.type === "slack") {
    const { createSlackAdapter } = await import("../platforms/slack/slack-adapter.ts");
    return createSlackAdapter({
      name: spec.name,
      botToken: spec.settings.botToken,
      ...(spec.settings.apiUrl ? { apiUrl: spec.settings.apiUrl } : {}),
      mode: slackMode(spec.settings, config, deps),
      logger,
    });
  }
  if (spec.type === "discord") {
    const { createDiscordAdapter } = await import("../platforms/discord/discord-adapter.ts");
    return createDiscordAdapter({
      name: spec.name,
      token: spec.settings.botToken,
      ...(spec.settings.apiUrl ? { apiUrl: spec.settings.apiUrl } : {}),
      logger,
    });
  }
  const { createFeishuAdapter } = await import("../platforms/feishu/feishu-adapter.ts");
  return createFeishuAdapter({
    name: spec.name,
    appId: spec.settings.appId,
    appSecret: spec.settings.appSecret,
    domain: spec.settings.domain,
    delivery: feishuDelivery(spec.settings, config.WEBHOOK_MAX_AGE_S * 1000),
    seen: new SeenEvents(deps.db, config.SEEN_EVENTS_TTL_S * 1000, () => deps.clock.now()),
    clock: deps.clock,
    logger,
  });
}

/** Asked for (CHAT=none) it is news; fallen into (CHAT=auto) it is likely a missing setting. */
function logHeadless(config: RouterConfig, logger: Logger): void {
  const line =
    "no chat: the router runs headless (hosts can connect, nobody can chat). To chat, set " +
    "TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN, DISCORD_BOT_TOKEN, or FEISHU_APP_ID and FEISHU_APP_SECRET, or CHAT=terminal to chat on stdin";
  if (config.CHAT === "none") logger.info({ CHAT: config.CHAT }, line);
  else logger.warn({ CHAT: config.CHAT, stdin: "not a terminal" }, line);
}

function telegramMode(settings: TelegramSettings) {
  if (settings.mode === "polling") return { kind: "polling" as const };
  return {
    kind: "webhook" as const,
    secret: settings.secret,
    ...(settings.url ? { url: settings.url } : {}),
  };
}

/** HTTP mode remembers the posts it has seen in router.db, as Feishu's webhook does. */
function slackMode(
  settings: SlackSettings,
  config: RouterConfig,
  deps: { clock: Clock; db: SqliteDatabase },
): SlackMode {
  if (settings.mode === "socket") return { kind: "socket", appToken: settings.appToken };
  return {
    kind: "http",
    signingSecret: settings.signingSecret,
    maxAgeMs: config.WEBHOOK_MAX_AGE_S * 1000,
    seen: new SeenEvents(deps.db, config.SEEN_EVENTS_TTL_S * 1000, () => deps.clock.now()),
    clock: deps.clock,
  };
}

function feishuDelivery(settings: FeishuSettings, maxAgeMs: number): FeishuDelivery {
  if (settings.mode === "ws") return { mode: "ws" };
  return {
    mode: "webhook",
    encryptKey: settings.encryptKey,
    verificationToken: settings.verificationToken,
    maxAgeMs,
  };
}
