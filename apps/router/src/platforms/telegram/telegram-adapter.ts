import type { Logger } from "@phonework/runtime";
import { type Api, InputFile } from "grammy";
import type { ReactionTypeEmoji } from "grammy/types";
import type { Capabilities, OutgoingFile, PlatformAdapter } from "../platform-adapter.ts";
import { menuCommands } from "./bot-commands.ts";
import { downloadFile } from "./file-download.ts";
import { ALLOWED_UPDATES } from "./incoming-update.ts";
import { chatIdOf, inlineKeyboard, messageIdOf, replyParameters, TEXT_OPTIONS } from "./outgoing.ts";
import { type Polling, startPolling } from "./polling.ts";
import { createTelegramApi, telegramApiRoot } from "./telegram-api.ts";
import { toPlatformError } from "./telegram-error.ts";
import { createUpdateHandler, type UpdateHandler } from "./update-handler.ts";
import { createTelegramWebhook, SECRET_TOKEN } from "./webhook-endpoint.ts";

// Telegram as a platform, through grammY's Api: updates by long polling or a webhook, messages,
// edits, files and the command menu out. This file wires; each part has its own.

export type TelegramMode =
  | { kind: "polling" }
  | {
      kind: "webhook";
      /** Given to setWebhook; Telegram sends it back in a header on every delivery. */
      secret: string;
      /** The public URL registered with setWebhook; without it, the webhook must be set by hand. */
      url?: string;
    };

export interface TelegramAdapterOptions {
  /** The adapter's name from the config; also names its webhook path, /webhook/<name>. */
  name: string;
  token: string;
  /** Another Bot API server (TELEGRAM_API_ROOT), without a trailing slash. */
  apiRoot?: string;
  mode: TelegramMode;
  logger: Logger;
  /** How long a getUpdates is held open (default 30 s). */
  pollTimeoutS?: number;
  /** The first pause after a failed poll or a refused update (default 1 s; doubles after). */
  pollRetryMs?: number;
}

const MB = 1024 * 1024;

export const TELEGRAM_CAPABILITIES: Capabilities = {
  maxMessageLength: 4096,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "telegram-html",
  threads: "replies",
  filesIn: true,
  voiceIn: true,
  imagesIn: true,
  maxFileBytes: 50 * MB,
  maxImageBytes: 10 * MB,
};

/** Runs a send-side call; whatever fails comes out as the PlatformError the send queue reads. */
async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toPlatformError(error);
  }
}

/**
 * Webhook mode: the webhook registered at the configured URL (or left as set elsewhere). Polling:
 * any webhook deleted first (Telegram refuses getUpdates while one is set), then getUpdates.
 */
async function receiveUpdates(
  api: Api,
  mode: TelegramAdapterOptions["mode"],
  handler: UpdateHandler,
  options: { logger: Logger; webhookPath: string | undefined; timeoutS: number; retryMs: number },
): Promise<Polling | undefined> {
  const { logger } = options;
  if (mode.kind === "webhook") {
    const { url, secret } = mode;
    if (url) {
      await platformCall(() =>
        api.setWebhook(url, { secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] }),
      );
    } else {
      logger.warn(
        { path: options.webhookPath },
        "Telegram webhook URL not configured: setWebhook was not called; register the public URL with Telegram yourself",
      );
    }
    return undefined;
  }
  await platformCall(() => api.deleteWebhook());
  return startPolling({ api, handle: handler, timeoutS: options.timeoutS, retryMs: options.retryMs, logger });
}

/**
 * Speech as a voice note (OGG/Opus, which Telegram plays inline); an image as a photo (at most
 * 10 MB) where Telegram takes it; anything else as a document (50 MB).
 */
async function sendTelegramFile(
  api: Api,
  chatId: number | string,
  file: OutgoingFile,
  logger: Logger,
): Promise<{ messageId: string }> {
  if (file.voice) {
    const sent = await platformCall(() => api.sendVoice(chatId, new InputFile(file.data, file.name)));
    return { messageId: String(sent.message_id) };
  }
  const photo =
    file.mimeType?.startsWith("image/") && file.data.length <= TELEGRAM_CAPABILITIES.maxImageBytes;
  if (photo) {
    try {
      const sent = await api.sendPhoto(chatId, new InputFile(file.data, file.name));
      return { messageId: String(sent.message_id) };
    } catch (error) {
      // A 400 means nothing was sent: Telegram would not take it as a photo (an SVG, odd
      // dimensions), so it goes as a document, which Telegram takes as it is.
      const failure = toPlatformError(error);
      if (failure.details.status !== 400) throw failure;
      logger.debug(
        { error: failure.message, file: file.name },
        "image refused as a photo; sent as a document",
      );
    }
  }
  const sent = await platformCall(() => api.sendDocument(chatId, new InputFile(file.data, file.name)));
  return { messageId: String(sent.message_id) };
}

export function createTelegramAdapter(options: TelegramAdapterOptions): PlatformAdapter {
  const { name, mode } = options;
  if (mode.kind === "webhook" && !SECRET_TOKEN.test(mode.secret)) {
    throw new Error("The Telegram webhook secret must be 1–256 characters of A–Z, a–z, 0–9, _ and -");
  }
  const apiRoot = telegramApiRoot(options.apiRoot);
  const logger = options.logger.child({ adapter: name });
  const api = createTelegramApi(options.token, apiRoot);
  let handler: UpdateHandler | undefined;
  let polling: Polling | undefined;
  let lastUpdateId: number | undefined;

  const webhook =
    mode.kind === "webhook"
      ? createTelegramWebhook({
          path: `/webhook/${name}`,
          secret: mode.secret,
          handler: () => handler,
          logger,
        })
      : undefined;

  return {
    name,
    type: "telegram",
    capabilities: TELEGRAM_CAPABILITIES,
    ...(webhook ? { webhook } : {}),

    async start(events) {
      const me = await platformCall(() => api.getMe());
      handler = createUpdateHandler({
        api,
        events,
        bot: { id: me.id, username: me.username },
        logger,
        onHandled: (updateId) => {
          lastUpdateId = Math.max(lastUpdateId ?? updateId, updateId);
        },
      });
      polling = await receiveUpdates(api, mode, handler, {
        logger,
        webhookPath: webhook?.path,
        timeoutS: options.pollTimeoutS ?? 30,
        retryMs: options.pollRetryMs ?? 1_000,
      });
      logger.info({ bot: me.username, mode: mode.kind }, "Telegram adapter started");
    },

    async stop() {
      handler = undefined;
      await polling?.stop();
      polling = undefined;
    },

    async send(to, text, sendOptions) {
      // Telegram has no idempotency key: the key is only logged, to follow a retried send.
      logger.debug({ idempotencyKey: sendOptions.idempotencyKey }, "Telegram sendMessage");
      // A turn's details are replies to its main message: Telegram has no threads in private chats.
      const replyTarget = sendOptions.replyTo ?? sendOptions.thread;
      const sent = await platformCall(() =>
        api.sendMessage(chatIdOf(to), text, {
          ...TEXT_OPTIONS,
          ...(replyTarget ? { reply_parameters: replyParameters(replyTarget) } : {}),
          ...(sendOptions.buttons?.length ? { reply_markup: inlineKeyboard(sendOptions.buttons) } : {}),
        }),
      );
      return { messageId: String(sent.message_id) };
    },

    async edit(to, messageId, text, editOptions) {
      // Without reply_markup Telegram drops the message's buttons, which is what "no buttons" means.
      await platformCall(() =>
        api.editMessageText(chatIdOf(to), messageIdOf(messageId), text, {
          ...TEXT_OPTIONS,
          ...(editOptions?.buttons?.length ? { reply_markup: inlineKeyboard(editOptions.buttons) } : {}),
        }),
      );
    },

    async sendFile(to, file, fileOptions) {
      logger.debug({ idempotencyKey: fileOptions.idempotencyKey, file: file.name }, "Telegram file upload");
      return sendTelegramFile(api, chatIdOf(to), file, logger);
    },

    download: (attachment) =>
      downloadFile(
        { api, apiRoot, token: options.token, maxBytes: TELEGRAM_CAPABILITIES.maxFileBytes },
        attachment.ref,
      ),

    async react(to, messageId, emoji) {
      // Telegram's list writes "❤" without the variation selector "❤️" carries; an emoji outside
      // the list is refused (permanent).
      const reaction: ReactionTypeEmoji = {
        type: "emoji",
        emoji: emoji.replaceAll("\uFE0F", "") as ReactionTypeEmoji["emoji"],
      };
      await platformCall(() => api.setMessageReaction(chatIdOf(to), messageIdOf(messageId), [reaction]));
    },

    async setCommands(commands) {
      await platformCall(() => api.setMyCommands(menuCommands(commands, logger)));
    },

    status: () => ({
      platform: "telegram",
      name,
      mode: mode.kind,
      polling: polling?.running ?? false,
      lastUpdateId: lastUpdateId ?? null,
    }),
  };
}
