import { z } from "zod";

// Field types of the chat platforms' settings, shared by the flat keys (FEISHU_APP_ID, TELEGRAM_BOT_TOKEN…)
// and the named adapters under `adapters:`, so both accept and refuse the same values with the same words.

/** A secret left empty ("" in .env or YAML, or nothing after the colon) is unset, not an error. */
export const optionalSecret = () =>
  z.preprocess((value) => (value === "" || value === null ? undefined : value), z.string().min(1).optional());

/** A value an adapter cannot work without: "is required" when absent, `must be …` when wrong. */
export const requiredString = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : `must be ${what}`) })
    .min(1, `must be ${what}`);

/** "feishu", "lark", or a base URL (a proxy). */
export const feishuDomain = () =>
  z
    .string()
    .regex(/^(feishu|lark|https?:\/\/.+)$/, "must be feishu, lark, or an http(s) base URL")
    .default("feishu");

/** ws: the SDK's long connection (no public URL needed); webhook: events posted to the router. */
export const feishuMode = () => z.enum(["ws", "webhook"], { error: "must be ws or webhook" }).default("ws");

/** The token @BotFather gives: the bot's numeric id, a colon, and the secret part. */
export const TELEGRAM_BOT_TOKEN = /^\d+:[A-Za-z0-9_-]+$/;
const botTokenMessage = "must be a bot token from @BotFather (123456789:AA…)";

export const telegramBotToken = () =>
  requiredString(botTokenMessage).regex(TELEGRAM_BOT_TOKEN, botTokenMessage);

/** Also for the flat key, which may be left empty (then Telegram is off). */
export const optionalTelegramBotToken = () =>
  z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    z.string().regex(TELEGRAM_BOT_TOKEN, botTokenMessage).optional(),
  );

/** polling: getUpdates (no public URL needed); webhook: Telegram posts updates to the router. */
export const telegramMode = () =>
  z.enum(["polling", "webhook"], { error: "must be polling or webhook" }).default("polling");

/** Telegram's `secret_token` of setWebhook: it sends it back in a header with every update. */
export const telegramWebhookSecret = () =>
  z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 letters, digits, _ or - (Telegram's secret_token)")
      .optional(),
  );

/** Why a Telegram webhook needs its secret: `adapters.<name>.webhook_secret` and TELEGRAM_WEBHOOK_SECRET. */
export function telegramWebhookSecretRequired(condition: string): string {
  return (
    `is required with ${condition}, so that only Telegram can post updates (letters, digits, _ and -; ` +
    "the router gives it to Telegram with setWebhook, which sends it back with every update)"
  );
}

export const httpUrl = () => z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** An optional URL left empty ("" in .env or YAML) is unset, not an error. */
export const optionalHttpUrl = () =>
  z.preprocess((value) => (value === "" || value === null ? undefined : value), httpUrl().optional());

/**
 * A Discord bot token: three dot-separated parts, the first the bot's id in base64. Checked loosely
 * (Discord changes the lengths), so a pasted client secret or application id is caught.
 */
export const DISCORD_BOT_TOKEN = /^[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$/;
const discordTokenMessage = "must be a bot token from the Discord developer portal (Bot → Reset Token)";

export const discordBotToken = () =>
  requiredString(discordTokenMessage).regex(DISCORD_BOT_TOKEN, discordTokenMessage);

/** Also for the flat key, which may be left empty (then Discord is off). */
export const optionalDiscordBotToken = () =>
  z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    z.string().regex(DISCORD_BOT_TOKEN, discordTokenMessage).optional(),
  );
