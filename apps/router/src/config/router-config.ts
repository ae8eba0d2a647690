import { homedir } from "node:os";
import { join } from "node:path";
import {
  logFormat,
  logLevel,
  openAiFields,
  pathField,
  port,
  positiveInt,
  seconds,
  stringList,
} from "@phonework/runtime";
import { z } from "zod";
import { AdaptersField } from "./adapter-entries.ts";
import {
  feishuDomain,
  feishuMode,
  optionalDiscordBotToken,
  optionalHttpUrl,
  optionalSecret,
  optionalTelegramBotToken,
  telegramMode,
  telegramWebhookSecret,
  telegramWebhookSecretRequired,
} from "./platform-fields.ts";
import {
  optionalSlackAppToken,
  optionalSlackBotToken,
  optionalSlackSigningSecret,
  slackMode,
  slackModeIssues,
} from "./slack-fields.ts";
import { trustProxyField } from "./trust-proxy-setting.ts";
import { webPushSubjectField } from "./web-push-subject.ts";

/** The router's keys; `RouterConfigSchema` adds the checks across keys. */
export const RouterConfigFields = z.object({
  /**
   * A shared secret admits hosts only on a router bound to loopback (standalone, a host on the
   * same machine, tests). On a public router hosts pair (`/pair`) and prove their own key.
   */
  ROUTER_SECRET: z.string().min(1).optional(),
  ROUTER_HOST: z.string().min(1).default("0.0.0.0"),
  ROUTER_PORT: port(8000),
  DATA_DIR: pathField().default(() => join(homedir(), ".phonework")),
  HEARTBEAT_INTERVAL_S: seconds(30),
  HEARTBEAT_TIMEOUT_S: seconds(10),
  /** How long a forwarded message may take before the user is told it timed out. */
  REQUEST_TIMEOUT_S: seconds(600),
  /**
   * How long a new node socket has to send `register`; then it is dropped (no closing handshake:
   * a silent client would hold it 30 s more). One round trip is all a host needs.
   */
  HANDSHAKE_TIMEOUT_S: seconds(2),
  /** Largest frame either side may send; bigger frames close the socket with 1009. */
  MAX_PAYLOAD_BYTES: positiveInt(16 * 1024 * 1024),
  /** Requests waiting on one node before new ones get QUEUE_FULL at once. */
  MAX_NODE_PENDING: positiveInt(100),
  /** A node socket with more than this many bytes unsent for SLOW_SOCKET_S is cut off. */
  SLOW_SOCKET_BYTES: positiveInt(8 * 1024 * 1024),
  SLOW_SOCKET_S: seconds(15),
  /** Node handshakes accepted per second; past it, 503 + Retry-After (reconnect storms). */
  MAX_HANDSHAKES_PER_S: positiveInt(2000),

  // The front door (front-door/): what anyone may hold of the router before proving who they are.
  /**
   * Connections one client address (an IPv6 /64) may hold open until they are a registered host or
   * a signed-in console socket; past it, new ones are dropped when accepted. Not for trusted proxies.
   */
  MAX_CONNECTIONS_PER_ADDRESS: positiveInt(128),
  /** Open connections in all; absent: the open-files limit less 5% (Linux), else no limit. */
  MAX_CONNECTIONS: z.coerce.number({ error: "must be a whole number" }).int().positive().optional(),
  /** A connection that has not sent a whole request head (or TLS handshake) by then is closed. */
  HTTP_HEADERS_TIMEOUT_S: seconds(10),
  /** A request whose body has not arrived by then is closed. */
  HTTP_REQUEST_TIMEOUT_S: seconds(30),
  /** off, on, or the reverse proxies' addresses and CIDR ranges: whose X-Forwarded-For is believed. */
  TRUST_PROXY: trustProxyField(),
  /** Minimum seconds between two edits of a progress message. */
  PROGRESS_INTERVAL_S: z.coerce.number().nonnegative().default(5),
  LOG_LEVEL: logLevel(),
  LOG_FORMAT: logFormat(),

  // Trust: who may pair hosts, what a node may push, who may see the full status.
  /**
   * Users allowed to pair, revoke, forget and share nodes (default: the only ALLOWED_USERS entry).
   * Qualified like ALLOWED_USERS; each adapter's own `admins` add to them.
   */
  ADMINS: stringList(),
  /** Bearer token for the full GET /health view; absent: no full view over HTTP. */
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** How long a join code from /pair stays valid. */
  JOIN_CODE_TTL_S: seconds(600),
  /** A pushed text longer than this is cut, with a marker. */
  MAX_PUSH_CHARS: positiveInt(20_000),
  /** Pushes (notices, task completions, files) one node may send per minute. */
  PUSH_RATE_PER_MIN: positiveInt(60),
  /** Messages waiting to be sent to one chat; past it, more are refused. */
  MAX_CHAT_QUEUE: positiveInt(200),
  /** Serve HTTPS/WSS with this certificate and key (PEM files); both or neither. */
  TLS_CERT_FILE: pathField().optional(),
  TLS_KEY_FILE: pathField().optional(),

  // The web console (console/): a browser view of the user's nodes, chat and terminals.
  /** on: `/console` in chat answers with a login link; off: no console routes, no /console. */
  CONSOLE: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  /**
   * The router's address as browsers reach it (https://router.example.com, through a proxy too),
   * for console links and the WebSocket origin check; absent: the address it listens on.
   */
  PUBLIC_URL: optionalHttpUrl(),
  /** How long a `/console` login link stays valid (it works once). */
  CONSOLE_LINK_TTL_S: seconds(300),
  /** How long a console sign-in lasts; `/console logout-all` ends them all sooner. */
  CONSOLE_SESSION_TTL_S: seconds(7 * 86_400),
  /** Console login attempts one address may make per minute. */
  CONSOLE_LOGIN_PER_MIN: positiveInt(10),
  /** Sign-ins tried with one login code, from any address; past it the code is burned. */
  CONSOLE_LOGIN_PER_CODE: positiveInt(3),
  /** Output of one console terminal the router holds before the browser has taken it; past it, it is closed. */
  CONSOLE_TERMINAL_BUFFER_BYTES: positiveInt(4 * 1024 * 1024),
  /** How long a console terminal waits for its page to come back (a reload, a phone waking up). */
  CONSOLE_TERMINAL_REATTACH_S: seconds(60),
  /** The contact in Web Push's VAPID JWT (`sub`): mailto: or https:; unset, from PUBLIC_URL (web-push-subject.ts). */
  WEB_PUSH_SUBJECT: webPushSubjectField(),

  // Which chat the router serves.
  /**
   * auto: Feishu when FEISHU_APP_ID is set, else the terminal when stdin is one, else none.
   * terminal: chat on stdin even when it is a pipe; end of input then stops the router (exit 0).
   * none: no chat (headless): hosts still connect; a service never stops at end of input.
   */
  CHAT: z.enum(["auto", "terminal", "none"], { error: "must be auto, terminal or none" }).default("auto"),

  // Feishu (Lark), the chat when CHAT=auto and FEISHU_APP_ID is set.
  FEISHU_APP_ID: z.string().min(1).optional(),
  FEISHU_APP_SECRET: z.string().min(1).optional(),
  /** "feishu", "lark", or a base URL (a proxy). */
  FEISHU_DOMAIN: feishuDomain(),
  /** ws: the SDK's long connection (no public URL needed); webhook: POST /webhook/feishu. */
  FEISHU_MODE: feishuMode(),
  FEISHU_ENCRYPT_KEY: optionalSecret(),
  FEISHU_VERIFICATION_TOKEN: optionalSecret(),

  // Telegram: TELEGRAM_BOT_TOKEN makes a chat adapter named "telegram".
  /** The bot's token from @BotFather; set, the router serves that bot. */
  TELEGRAM_BOT_TOKEN: optionalTelegramBotToken(),
  /** polling: the router asks Telegram for updates (no public URL needed); webhook: Telegram posts them. */
  TELEGRAM_MODE: telegramMode(),
  /** Required with TELEGRAM_MODE=webhook: Telegram sends it back with every update, proving the sender. */
  TELEGRAM_WEBHOOK_SECRET: telegramWebhookSecret(),
  /** Webhook mode: registered with setWebhook at start; absent, the webhook set elsewhere is kept. */
  TELEGRAM_WEBHOOK_URL: optionalHttpUrl(),
  /** A local Bot API server (e.g. http://127.0.0.1:8081) instead of api.telegram.org. */
  TELEGRAM_API_ROOT: optionalHttpUrl(),

  // Slack: SLACK_BOT_TOKEN makes a chat adapter named "slack".
  /** The app's bot token (xoxb-…); set, the router serves that Slack app. */
  SLACK_BOT_TOKEN: optionalSlackBotToken(),
  /** socket: Socket Mode (no public URL needed); http: Slack posts to /webhook/slack. */
  SLACK_MODE: slackMode(),
  /** Required with SLACK_MODE=socket: the app-level token (xapp-…) that opens the socket. */
  SLACK_APP_TOKEN: optionalSlackAppToken(),
  /** Required with SLACK_MODE=http: the app's Signing Secret; every post from Slack is signed with it. */
  SLACK_SIGNING_SECRET: optionalSlackSigningSecret(),
  /** Another Web API server instead of https://slack.com/api (Socket Mode connects through it too). */
  SLACK_API_URL: optionalHttpUrl(),
  // Discord: DISCORD_BOT_TOKEN makes a chat adapter named "discord".
  /** The bot's token from the Discord developer portal; set, the router serves that bot. */
  DISCORD_BOT_TOKEN: optionalDiscordBotToken(),
  /** Another Discord API (e.g. http://127.0.0.1:9000/api) instead of discord.com/api; its /gateway/bot names the gateway. */
  DISCORD_API_URL: optionalHttpUrl(),

  /**
   * Chat adapters by name, each `{ type, …its keys, admins, dm }` (adapter-entries.ts).
   * Config file only. The flat FEISHU_* and TELEGRAM_* keys are a shorthand for one adapter of each
   * type, named feishu and telegram; both kinds can be combined.
   */
  adapters: AdaptersField.optional(),

  /**
   * Chat user ids allowed to use the bot; "*" opens every adapter to everyone. Qualified by the
   * adapter's name (`telegram:123456`, `feishu:ou_abc`); a bare id means the only chat adapter.
   */
  ALLOWED_USERS: stringList(),
  /** How long redelivered events are recognised (at least 12 h). */
  SEEN_EVENTS_TTL_S: z.coerce.number().min(43_200, "must be at least 43200 (12 h)").default(86_400),
  /** How long delivered push ids are remembered, so a host's resend is not shown twice. */
  DELIVERED_TTL_S: seconds(7 * 86_400),

  // Webhooks (every platform that delivers events over HTTP). An event whose signed timestamp is
  // further than this from now, either way, is refused: a captured request cannot be replayed later.
  WEBHOOK_MAX_AGE_S: seconds(300),

  // The routing LLM picks a node when the cheap rules cannot. Each ROUTER_LLM_* key defaults to its
  // OPENAI_* twin, so a router that shares the hosts' provider needs only OPENAI_API_KEY.
  ...openAiFields,
  ROUTER_LLM_BASE_URL: openAiFields.OPENAI_BASE_URL,
  ROUTER_LLM_API_KEY: openAiFields.OPENAI_API_KEY,
  ROUTER_LLM_MODEL: z.string().min(1).optional(),
  /** A routing call slower than this falls back to the active node. */
  ROUTER_LLM_TIMEOUT_S: seconds(10),

  // Speech to text (voice/): voice notes are transcribed on the router, before routing, through an
  // OpenAI-compatible /audio/transcriptions endpoint (OpenAI, Groq, a local whisper server).
  STT_BASE_URL: optionalHttpUrl(),
  STT_API_KEY: optionalSecret(),
  STT_MODEL: z.string().min(1).default("whisper-1"),
  STT_MAX_SECONDS: positiveInt(300),
  /** OpenAI's own limit is 25 MB. */
  STT_MAX_BYTES: positiveInt(25 * 1024 * 1024),
  STT_TIMEOUT_S: seconds(60),
  // Text to speech (voice/): with /voice on, a user's short answers also arrive as speech, through an
  // OpenAI-compatible /audio/speech endpoint (the STT endpoint and key unless set apart).
  TTS_BASE_URL: optionalHttpUrl(),
  TTS_API_KEY: optionalSecret(),
  TTS_MODEL: z.string().min(1).default("tts-1"),
  TTS_VOICE: z.string().min(1).default("alloy"),
  /** Only answers this short (after code and markdown are taken out) are spoken. */
  TTS_MAX_CHARS: positiveInt(600),
  /** The routing LLM's usage rows in router.db older than this are deleted (at start and daily). */
  USAGE_RETENTION_DAYS: z.coerce
    .number({ error: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(3650, "must be at most 3650")
    .default(90),
});

// `when`: checked even when another key is wrong too, so one run names every problem.
export const RouterConfigSchema = RouterConfigFields.superRefine(routerConfigChecks, { when: () => true });

/** The checks across keys, for the router and for the standalone (which extends its fields). */
export function routerConfigChecks(
  config: Parameters<typeof webhookNeedsSecrets>[0] &
    Parameters<typeof telegramWebhookNeedsSecret>[0] &
    Parameters<typeof tlsFilesTogether>[0] &
    Parameters<typeof slackNeedsSecrets>[0] &
    Parameters<typeof headersWithinRequest>[0],
  ctx: z.RefinementCtx,
): void {
  webhookNeedsSecrets(config, ctx);
  telegramWebhookNeedsSecret(config, ctx);
  tlsFilesTogether(config, ctx);
  slackNeedsSecrets(config, ctx);
  headersWithinRequest(config, ctx);
}

/** Node refuses a server whose request head may take longer than the whole request. */
function headersWithinRequest(
  config: { HTTP_HEADERS_TIMEOUT_S: number; HTTP_REQUEST_TIMEOUT_S: number },
  ctx: z.RefinementCtx,
): void {
  if (config.HTTP_HEADERS_TIMEOUT_S <= config.HTTP_REQUEST_TIMEOUT_S) return;
  ctx.addIssue({
    code: "custom",
    path: ["HTTP_HEADERS_TIMEOUT_S"],
    message: `must be at most HTTP_REQUEST_TIMEOUT_S (${config.HTTP_REQUEST_TIMEOUT_S})`,
  });
}

/** A certificate without its key (or the other way round) cannot serve TLS. */
function tlsFilesTogether(
  config: { TLS_CERT_FILE?: string | undefined; TLS_KEY_FILE?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (Boolean(config.TLS_CERT_FILE) === Boolean(config.TLS_KEY_FILE)) return;
  const [missing, given] = config.TLS_CERT_FILE
    ? ["TLS_KEY_FILE", "TLS_CERT_FILE"]
    : ["TLS_CERT_FILE", "TLS_KEY_FILE"];
  ctx.addIssue({ code: "custom", path: [missing], message: `is required with ${given}` });
}

/**
 * Webhook mode is a public URL: without the encrypt key nothing is signed, and without the token
 * nothing identifies the app, so anyone could post events as any user. One issue naming both keys
 * (the loader prints it as one line), saying which are missing.
 */
function webhookNeedsSecrets(
  config: {
    FEISHU_MODE: string;
    FEISHU_ENCRYPT_KEY?: string | undefined;
    FEISHU_VERIFICATION_TOKEN?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (config.FEISHU_MODE !== "webhook") return;
  const missing = (["FEISHU_ENCRYPT_KEY", "FEISHU_VERIFICATION_TOKEN"] as const).filter(
    (key) => !config[key],
  );
  if (missing.length === 0) return;
  ctx.addIssue({
    code: "custom",
    path: ["FEISHU_ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN"],
    message:
      `both are required with FEISHU_MODE=webhook, so that every event is signed and names the app ` +
      `(missing: ${missing.join(", ")}; the Feishu developer console shows them under Events & Callbacks)`,
  });
}

/** A webhook anyone can find would take forged updates: Telegram's secret_token proves the sender. */
function telegramWebhookNeedsSecret(
  config: { TELEGRAM_MODE: string; TELEGRAM_WEBHOOK_SECRET?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.TELEGRAM_MODE !== "webhook" || config.TELEGRAM_WEBHOOK_SECRET) return;
  ctx.addIssue({
    code: "custom",
    path: ["TELEGRAM_WEBHOOK_SECRET"],
    message: telegramWebhookSecretRequired("TELEGRAM_MODE=webhook"),
  });
}

/** Socket Mode cannot connect without the app token; HTTP mode would take forged posts without the secret. */
function slackNeedsSecrets(
  config: {
    SLACK_BOT_TOKEN?: string | undefined;
    SLACK_MODE: "socket" | "http";
    SLACK_APP_TOKEN?: string | undefined;
    SLACK_SIGNING_SECRET?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (!config.SLACK_BOT_TOKEN) return;
  const settings = {
    mode: config.SLACK_MODE,
    appToken: config.SLACK_APP_TOKEN,
    signingSecret: config.SLACK_SIGNING_SECRET,
  };
  const keys = { appToken: "SLACK_APP_TOKEN", signingSecret: "SLACK_SIGNING_SECRET", mode: "SLACK_MODE=" };
  for (const issue of slackModeIssues(settings, keys))
    ctx.addIssue({ code: "custom", path: [issue.key], message: issue.message });
}

export interface RoutingLlmSettings {
  baseURL: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/** The routing LLM's endpoint, or undefined when no key is configured (routing then needs no model). */
export function routingLlmSettings(config: RouterConfig): RoutingLlmSettings | undefined {
  const apiKey = config.ROUTER_LLM_API_KEY ?? config.OPENAI_API_KEY;
  if (!apiKey) return undefined;
  return {
    baseURL: config.ROUTER_LLM_BASE_URL ?? config.OPENAI_BASE_URL,
    apiKey,
    model: config.ROUTER_LLM_MODEL ?? config.OPENAI_MODEL,
    timeoutMs: config.ROUTER_LLM_TIMEOUT_S * 1000,
  };
}

export type RouterConfig = z.infer<typeof RouterConfigSchema>;

/** The transcription endpoint, or undefined when STT_BASE_URL is not set (voice notes then get a sentence). */
export function sttSettings(config: RouterConfig) {
  if (!config.STT_BASE_URL) return undefined;
  return {
    baseURL: config.STT_BASE_URL,
    apiKey: config.STT_API_KEY,
    model: config.STT_MODEL,
    maxSeconds: config.STT_MAX_SECONDS,
    maxBytes: config.STT_MAX_BYTES,
    timeoutMs: config.STT_TIMEOUT_S * 1000,
  };
}

/** The speech endpoint, or undefined when neither TTS_BASE_URL nor STT_BASE_URL is set (/voice on then says so). */
export function ttsSettings(config: RouterConfig) {
  const baseURL = config.TTS_BASE_URL ?? config.STT_BASE_URL;
  if (!baseURL) return undefined;
  return {
    baseURL,
    apiKey: config.TTS_API_KEY ?? config.STT_API_KEY,
    model: config.TTS_MODEL,
    voice: config.TTS_VOICE,
    maxChars: config.TTS_MAX_CHARS,
    timeoutMs: 30_000,
  };
}
