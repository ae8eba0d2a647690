import type { AdapterEntry } from "./adapter-entries.ts";
import type { ConfigIssue } from "./config-issues.ts";
import { slackIdentity, slackModeIssues } from "./slack-fields.ts";

// The chat adapters the config describes, in the platform's own terms, whether named under `adapters:`
// or made by the flat FEISHU_* / TELEGRAM_* keys; access is settled afterwards (adapter-specs.ts).
// Webhook modes carry their secrets in the type, so a builder cannot start a webhook without them.

export type FeishuSettings = { appId: string; appSecret: string; domain: string } & (
  | { mode: "ws" }
  | { mode: "webhook"; encryptKey: string; verificationToken: string }
);

export type TelegramSettings = {
  botToken: string;
  /** A local Bot API server instead of api.telegram.org. */
  apiRoot?: string;
} & (
  | { mode: "polling" }
  /** `url`: registered with setWebhook at start; without it, the webhook set elsewhere is kept. */
  | { mode: "webhook"; secret: string; url?: string }
);

export type SlackSettings = {
  botToken: string;
  /** Another Web API server (SLACK_API_URL) instead of slack.com/api. */
  apiUrl?: string;
} & ({ mode: "socket"; appToken: string } | { mode: "http"; signingSecret: string });

export type DiscordSettings = {
  /** Events come over Discord's gateway (a WebSocket the router opens): no public URL needed. */
  mode: "gateway";
  botToken: string;
  /** Another Discord API (DISCORD_API_URL); the gateway address comes from its /gateway/bot. */
  apiUrl?: string;
};

export type AdapterSettings =
  | { type: "feishu"; settings: FeishuSettings }
  | { type: "telegram"; settings: TelegramSettings }
  | { type: "slack"; settings: SlackSettings }
  | { type: "discord"; settings: DiscordSettings };

/** The keys the flat shorthand reads. */
export interface FlatAdapterKeys {
  FEISHU_APP_ID?: string | undefined;
  FEISHU_APP_SECRET?: string | undefined;
  FEISHU_DOMAIN: string;
  FEISHU_MODE: "ws" | "webhook";
  FEISHU_ENCRYPT_KEY?: string | undefined;
  FEISHU_VERIFICATION_TOKEN?: string | undefined;
  TELEGRAM_BOT_TOKEN?: string | undefined;
  TELEGRAM_MODE: "polling" | "webhook";
  TELEGRAM_WEBHOOK_SECRET?: string | undefined;
  TELEGRAM_WEBHOOK_URL?: string | undefined;
  TELEGRAM_API_ROOT?: string | undefined;
  SLACK_BOT_TOKEN?: string | undefined;
  SLACK_MODE: "socket" | "http";
  SLACK_APP_TOKEN?: string | undefined;
  SLACK_SIGNING_SECRET?: string | undefined;
  SLACK_API_URL?: string | undefined;
  DISCORD_BOT_TOKEN?: string | undefined;
  DISCORD_API_URL?: string | undefined;
}

/** An adapter before access is settled: its own lists, unqualified, and where it came from. */
export type AdapterCandidate = AdapterSettings & {
  name: string;
  /** Named adapters' own `admins` and `dm`; the shorthand has none (ALLOWED_USERS and ADMINS fill it). */
  admins: readonly string[];
  dm: "everyone" | "none" | readonly string[];
  /** The bot or app it serves (never shown): two adapters for one bot would fight over its updates. */
  identity: string;
  /** The key that names that bot or app: TELEGRAM_BOT_TOKEN, `adapters.tg.bot_token`. */
  identityKey: string;
};

/** The adapters the flat keys make: `feishu` when FEISHU_APP_ID is set, `telegram` when TELEGRAM_BOT_TOKEN is. */
export function flatCandidates(config: FlatAdapterKeys, issues: ConfigIssue[]): AdapterCandidate[] {
  const candidates: AdapterCandidate[] = [];
  const common = { admins: [], dm: "none" } as const;
  if (config.FEISHU_APP_ID) {
    const settings = feishuSettings(
      {
        appId: config.FEISHU_APP_ID,
        appSecret: config.FEISHU_APP_SECRET,
        domain: config.FEISHU_DOMAIN,
        mode: config.FEISHU_MODE,
        encryptKey: config.FEISHU_ENCRYPT_KEY,
        verificationToken: config.FEISHU_VERIFICATION_TOKEN,
      },
      {
        appSecret: { key: "FEISHU_APP_SECRET", message: "is required with FEISHU_APP_ID" },
        webhook: {
          key: "FEISHU_ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN",
          message: "both are required with FEISHU_MODE=webhook",
        },
      },
      issues,
    );
    if (settings)
      candidates.push({
        type: "feishu",
        settings,
        name: "feishu",
        identity: `feishu:${config.FEISHU_APP_ID}`,
        identityKey: "FEISHU_APP_ID",
        ...common,
      });
  }
  if (config.TELEGRAM_BOT_TOKEN) {
    const settings = telegramSettings(
      {
        botToken: config.TELEGRAM_BOT_TOKEN,
        mode: config.TELEGRAM_MODE,
        secret: config.TELEGRAM_WEBHOOK_SECRET,
        url: config.TELEGRAM_WEBHOOK_URL,
        apiRoot: config.TELEGRAM_API_ROOT,
      },
      { key: "TELEGRAM_WEBHOOK_SECRET", message: "is required with TELEGRAM_MODE=webhook" },
      issues,
    );
    if (settings)
      candidates.push({
        type: "telegram",
        settings,
        name: "telegram",
        identity: telegramIdentity(config.TELEGRAM_BOT_TOKEN),
        identityKey: "TELEGRAM_BOT_TOKEN",
        ...common,
      });
  }
  if (config.SLACK_BOT_TOKEN) {
    const settings = slackSettings(
      {
        botToken: config.SLACK_BOT_TOKEN,
        mode: config.SLACK_MODE,
        appToken: config.SLACK_APP_TOKEN,
        signingSecret: config.SLACK_SIGNING_SECRET,
        apiUrl: config.SLACK_API_URL,
      },
      { appToken: "SLACK_APP_TOKEN", signingSecret: "SLACK_SIGNING_SECRET", mode: "SLACK_MODE=" },
      issues,
    );
    if (settings)
      candidates.push({
        type: "slack",
        settings,
        name: "slack",
        identity: slackIdentity(config.SLACK_BOT_TOKEN),
        identityKey: "SLACK_BOT_TOKEN",
        ...common,
      });
  }
  if (config.DISCORD_BOT_TOKEN)
    candidates.push({
      type: "discord",
      settings: discordSettings(config.DISCORD_BOT_TOKEN, config.DISCORD_API_URL),
      name: "discord",
      identity: discordIdentity(config.DISCORD_BOT_TOKEN),
      identityKey: "DISCORD_BOT_TOKEN",
      ...common,
    });
  return candidates;
}

/** The adapters under `adapters:`, in the order the file lists them. */
export function namedCandidates(
  adapters: Readonly<Record<string, AdapterEntry>>,
  issues: ConfigIssue[],
): AdapterCandidate[] {
  const candidates: AdapterCandidate[] = [];
  for (const [name, entry] of Object.entries(adapters)) {
    const key = `adapters.${name}`;
    const common = { name, admins: entry.admins, dm: entry.dm };
    if (entry.type === "feishu") {
      const settings = feishuSettings(
        {
          appId: entry.app_id,
          appSecret: entry.app_secret,
          domain: entry.domain,
          mode: entry.mode,
          encryptKey: entry.encrypt_key,
          verificationToken: entry.verification_token,
        },
        {
          appSecret: { key: `${key}.app_secret`, message: "is required" },
          webhook: {
            key: `${key}.encrypt_key, ${key}.verification_token`,
            message: "both are required with mode webhook",
          },
        },
        issues,
      );
      if (settings)
        candidates.push({
          type: "feishu",
          settings,
          identity: `feishu:${entry.app_id}`,
          identityKey: `${key}.app_id`,
          ...common,
        });
    } else if (entry.type === "slack") {
      const settings = slackSettings(
        {
          botToken: entry.bot_token,
          mode: entry.mode,
          appToken: entry.app_token,
          signingSecret: entry.signing_secret,
          apiUrl: entry.api_url,
        },
        { appToken: `${key}.app_token`, signingSecret: `${key}.signing_secret`, mode: "mode " },
        issues,
      );
      if (settings)
        candidates.push({
          type: "slack",
          settings,
          identity: slackIdentity(entry.bot_token),
          identityKey: `${key}.bot_token`,
          ...common,
        });
    } else if (entry.type === "discord") {
      candidates.push({
        type: "discord",
        settings: discordSettings(entry.bot_token, entry.api_url),
        identity: discordIdentity(entry.bot_token),
        identityKey: `${key}.bot_token`,
        ...common,
      });
    } else {
      const settings = telegramSettings(
        {
          botToken: entry.bot_token,
          mode: entry.mode,
          secret: entry.webhook_secret,
          url: entry.webhook_url,
          apiRoot: entry.api_root,
        },
        { key: `${key}.webhook_secret`, message: "is required with mode webhook" },
        issues,
      );
      if (settings)
        candidates.push({
          type: "telegram",
          settings,
          identity: telegramIdentity(entry.bot_token),
          identityKey: `${key}.bot_token`,
          ...common,
        });
    }
  }
  return candidates;
}

// The schema already refuses what these check; they narrow the types, and catch a config object
// built without the schema. `missing` is the issue to report when a secret is absent.

function feishuSettings(
  raw: {
    appId: string;
    appSecret: string | undefined;
    domain: string;
    mode: "ws" | "webhook";
    encryptKey: string | undefined;
    verificationToken: string | undefined;
  },
  missing: { appSecret: ConfigIssue; webhook: ConfigIssue },
  issues: ConfigIssue[],
): FeishuSettings | undefined {
  const { appId, appSecret, domain, encryptKey, verificationToken } = raw;
  if (!appSecret) {
    issues.push(missing.appSecret);
    return undefined;
  }
  if (raw.mode === "ws") return { appId, appSecret, domain, mode: "ws" };
  if (!encryptKey || !verificationToken) {
    issues.push(missing.webhook);
    return undefined;
  }
  return { appId, appSecret, domain, mode: "webhook", encryptKey, verificationToken };
}

function telegramSettings(
  raw: {
    botToken: string;
    mode: "polling" | "webhook";
    secret: string | undefined;
    url: string | undefined;
    apiRoot: string | undefined;
  },
  missingSecret: ConfigIssue,
  issues: ConfigIssue[],
): TelegramSettings | undefined {
  const { botToken, secret, url, apiRoot } = raw;
  const root = apiRoot ? { apiRoot } : {};
  if (raw.mode === "polling") return { botToken, mode: "polling", ...root };
  if (!secret) {
    issues.push(missingSecret);
    return undefined;
  }
  return { botToken, mode: "webhook", secret, ...(url ? { url } : {}), ...root };
}

/** A bot token is `<bot id>:<secret>`; the bot is the id (a new secret is still the same bot). */
function telegramIdentity(botToken: string): string {
  return `telegram:${botToken.slice(0, botToken.indexOf(":"))}`;
}

function slackSettings(
  raw: {
    botToken: string;
    mode: "socket" | "http";
    appToken: string | undefined;
    signingSecret: string | undefined;
    apiUrl: string | undefined;
  },
  keys: { appToken: string; signingSecret: string; mode: string },
  issues: ConfigIssue[],
): SlackSettings | undefined {
  const { botToken, appToken, signingSecret, apiUrl } = raw;
  const missing = slackModeIssues(raw, keys);
  if (missing.length > 0) {
    issues.push(...missing);
    return undefined;
  }
  const root = apiUrl ? { apiUrl } : {};
  if (raw.mode === "socket" && appToken) return { botToken, mode: "socket", appToken, ...root };
  if (raw.mode === "http" && signingSecret) return { botToken, mode: "http", signingSecret, ...root };
  return undefined;
}

function discordSettings(botToken: string, apiUrl: string | undefined): DiscordSettings {
  return { mode: "gateway", botToken, ...(apiUrl ? { apiUrl } : {}) };
}

/** A Discord bot token starts with the bot's id in base64: a new token is still the same bot. */
function discordIdentity(botToken: string): string {
  const first = botToken.slice(0, botToken.indexOf("."));
  return `discord:${Buffer.from(first, "base64url").toString("utf8")}`;
}
