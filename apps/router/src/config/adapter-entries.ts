import { z } from "zod";
import { ADAPTER_NAME, TERMINAL_PLATFORM } from "../ids/qualified-id.ts";
import {
  discordBotToken,
  feishuDomain,
  feishuMode,
  httpUrl,
  optionalSecret,
  requiredString,
  telegramBotToken,
  telegramMode,
  telegramWebhookSecret,
  telegramWebhookSecretRequired,
} from "./platform-fields.ts";
import {
  optionalSlackAppToken,
  optionalSlackSigningSecret,
  slackBotToken,
  slackMode,
  slackModeIssues,
} from "./slack-fields.ts";

// The `adapters:` key of the config file: chat adapters by name, each `{ type, …its keys, admins, dm }`.
// Keys inside an adapter are snake_case; an unknown one is refused (a typo would otherwise drop a setting).

/** A user id: a string, or a number as YAML reads `123456` and `-1001234` (Telegram ids). */
const UserId = z.union([z.string().min(1), z.int().transform(String)], { error: "must be a user id" });

const accessFields = {
  /** Ids that may always DM the bot, and are router admins (pairing, sharing nodes). */
  admins: z.array(UserId, { error: "must be a list of user ids" }).default([]),
  /** Who else may DM: everyone, none (only admins), or these ids. */
  dm: z
    .union([z.literal("everyone"), z.literal("none"), z.array(UserId)], {
      error: "must be everyone, none, or a list of user ids",
    })
    .default("none"),
};

/** A strict object whose unknown-key message lists the keys this type takes. */
function adapterEntry<Shape extends z.ZodRawShape>(type: string, shape: Shape) {
  const known = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")} (a ${type} adapter takes ${known})`
        : undefined,
  });
}

export const FeishuEntry = adapterEntry("feishu", {
  type: z.literal("feishu"),
  app_id: requiredString("the app's id (cli_…)"),
  app_secret: requiredString("the app's secret"),
  domain: feishuDomain(),
  mode: feishuMode(),
  encrypt_key: optionalSecret(),
  verification_token: optionalSecret(),
  ...accessFields,
}).superRefine(
  (entry, ctx) => {
    if (entry.mode !== "webhook") return;
    // One issue per missing key, each naming its own path (adapters.<name>.encrypt_key).
    const why = {
      encrypt_key: "so that every event is signed",
      verification_token: "so that every event names the app",
    };
    for (const key of ["encrypt_key", "verification_token"] as const)
      if (!entry[key])
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `is required with mode webhook, ${why[key]} (the Feishu developer console shows it under Events & Callbacks)`,
        });
  },
  { when: (payload) => isObject(payload.value) },
);

export const TelegramEntry = adapterEntry("telegram", {
  type: z.literal("telegram"),
  bot_token: telegramBotToken(),
  mode: telegramMode(),
  webhook_secret: telegramWebhookSecret(),
  /** Registered with setWebhook at start; without it the webhook is left as set elsewhere. */
  webhook_url: httpUrl().optional(),
  /** A local Bot API server instead of api.telegram.org. */
  api_root: httpUrl().optional(),
  ...accessFields,
}).superRefine(
  (entry, ctx) => {
    if (entry.mode === "webhook" && !entry.webhook_secret)
      ctx.addIssue({
        code: "custom",
        path: ["webhook_secret"],
        message: telegramWebhookSecretRequired("mode webhook"),
      });
  },
  { when: (payload) => isObject(payload.value) },
);

export const SlackEntry = adapterEntry("slack", {
  type: z.literal("slack"),
  bot_token: slackBotToken(),
  mode: slackMode(),
  /** Socket mode: the app-level token (xapp-…) that opens the socket. */
  app_token: optionalSlackAppToken(),
  /** HTTP mode: the app's Signing Secret, which every post from Slack is signed with. */
  signing_secret: optionalSlackSigningSecret(),
  /** Another Web API server instead of slack.com/api. */
  api_url: httpUrl().optional(),
  ...accessFields,
}).superRefine(
  (entry, ctx) => {
    const keys = { appToken: "app_token", signingSecret: "signing_secret", mode: "mode " };
    const settings = { mode: entry.mode, appToken: entry.app_token, signingSecret: entry.signing_secret };
    for (const issue of slackModeIssues(settings, keys))
      ctx.addIssue({ code: "custom", path: [issue.key], message: issue.message });
  },
  { when: (payload) => isObject(payload.value) },
);

export const DiscordEntry = adapterEntry("discord", {
  type: z.literal("discord"),
  bot_token: discordBotToken(),
  /** Another Discord API (its /gateway/bot names the gateway too) instead of discord.com/api. */
  api_url: httpUrl().optional(),
  ...accessFields,
});

export const AdapterEntry = z.discriminatedUnion(
  "type",
  [FeishuEntry, TelegramEntry, SlackEntry, DiscordEntry],
  {
    error: (issue) =>
      issue.code === "invalid_union" ? "must be feishu, telegram, slack or discord" : undefined,
  },
);

export type FeishuEntry = z.output<typeof FeishuEntry>;
export type TelegramEntry = z.output<typeof TelegramEntry>;
export type SlackEntry = z.output<typeof SlackEntry>;
export type DiscordEntry = z.output<typeof DiscordEntry>;
export type AdapterEntry = z.output<typeof AdapterEntry>;

/**
 * The `adapters:` key. Only the config file can hold it: a mapping has no natural form in one
 * environment variable, and the flat FEISHU_* / TELEGRAM_* keys cover one adapter of each type there.
 */
export const AdaptersField = z
  .record(z.string(), AdapterEntry, {
    error:
      "must be a mapping of adapter names to their settings (set in the config file, not the environment)",
  })
  .superRefine(
    (adapters, ctx) => {
      for (const name of Object.keys(adapters)) {
        const problem = adapterNameProblem(name);
        if (problem) ctx.addIssue({ code: "custom", path: [name], message: problem });
      }
    },
    { when: (payload) => isObject(payload.value) },
  );

export type AdaptersConfig = z.output<typeof AdaptersField>;

function adapterNameProblem(name: string): string | undefined {
  if (!ADAPTER_NAME.test(name))
    return "adapter names are lowercase letters, digits and dashes, starting with a letter (at most 32)";
  if (name === TERMINAL_PLATFORM)
    return "the name terminal is reserved for the terminal chat (CHAT=terminal)";
  return undefined;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
