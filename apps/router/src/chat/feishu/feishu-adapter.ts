import { randomUUID } from "node:crypto";
import * as lark from "@larksuiteoapi/node-sdk";
import { type Clock, KeyedQueue, type Logger } from "@phonework/runtime";
import type { AccessControl } from "../access-control.ts";
import type {
  ChatAdapter,
  ChatAddress,
  MessageListener,
  OutgoingFile,
  SentMessage,
} from "../chat-adapter.ts";
import { splitForChat } from "../message-chunks.ts";
import {
  deliveryFailedText,
  fileTooLargeText,
  unknownUserText,
  unsupportedMessageText,
} from "../user-messages.ts";
import { guardWebhook } from "../webhook/guard-webhook.ts";
import { markdownCard, textContent } from "./card.ts";
import { FeishuApi, type Recipient } from "./feishu-api.ts";
import { FeishuError, toFeishuError } from "./feishu-error.ts";
import { parseReceiveEvent, type ReceiveEvent, redeliveryKeys, refusedUserKey } from "./incoming-event.ts";
import { createLarkClient, larkDomain, larkLogger } from "./lark-client.ts";
import type { SeenEvents } from "./seen-events.ts";
import { type FeishuWebhookSecrets, feishuWebhookVerifier } from "./webhook-verifier.ts";
import { type RetryPolicy, withRetry } from "./with-retry.ts";

// Feishu (Lark) as a chat platform: events over the SDK's long connection or a webhook;
// answers as markdown cards replying to the message they answer, split when long; files
// uploaded; one serial send queue per chat.

/** How events arrive: the long connection, or signed webhooks checked against these secrets. */
export type FeishuDelivery = { mode: "ws" } | ({ mode: "webhook"; maxAgeMs: number } & FeishuWebhookSecrets);

export interface FeishuAdapterOptions {
  appId: string;
  appSecret: string;
  domain: string;
  delivery: FeishuDelivery;
  access: AccessControl;
  seen: SeenEvents;
  retry: RetryPolicy;
  clock: Clock;
  logger: Logger;
}

const IMAGE_CAP = 10 * 1024 * 1024;
const FILE_CAP = 30 * 1024 * 1024;
const FILE_TYPES: Record<string, string> = {
  pdf: "pdf",
  doc: "doc",
  docx: "doc",
  xls: "xls",
  xlsx: "xls",
  ppt: "ppt",
  pptx: "ppt",
  mp4: "mp4",
  opus: "opus",
};

export function createFeishuAdapter(options: FeishuAdapterOptions): ChatAdapter {
  const { logger } = options;
  const client = createLarkClient(options);
  const api = new FeishuApi(client);
  const queue = new KeyedQueue();
  let listener: MessageListener | undefined;
  let botOpenId: string | undefined;
  let wsClient: lark.WSClient | undefined;

  const recipient = (to: ChatAddress): Recipient =>
    to.chatId
      ? { receiveIdType: "chat_id", receiveId: to.chatId }
      : { receiveIdType: "open_id", receiveId: to.userId };
  const inOrder = <T>(to: ChatAddress, send: () => Promise<T>) => queue.run(to.chatId ?? to.userId, send);
  const retrying = <T>(call: () => Promise<T>) => withRetry(call, options.retry);

  /** One message: a markdown card, or plain text if the card is refused for its content. */
  const sendOne = async (to: Recipient, text: string): Promise<string> => {
    const uuid = randomUUID(); // the same uuid on every retry: Feishu sends it at most once
    try {
      return await retrying(() => api.send(to, "interactive", markdownCard(text), uuid));
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      logger.warn({ code: failure.code, err: failure.message }, "card refused; sending as text");
      return retrying(() => api.send(to, "text", textContent(text), randomUUID()));
    }
  };

  /** A card replying to `messageId`; refused for good (the message was recalled…), a plain message. */
  const replyOne = async (to: Recipient, messageId: string, text: string): Promise<string> => {
    const uuid = randomUUID();
    try {
      return await retrying(() => api.reply(messageId, "interactive", markdownCard(text), uuid));
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      logger.warn(
        { code: failure.code, err: failure.message, messageId },
        "reply refused; sending as a plain message",
      );
      return sendOne(to, text);
    }
  };

  const reportFailure = async (to: Recipient, error: unknown, what: string) => {
    const failure = toFeishuError(error);
    logger.error(
      { code: failure.code, status: failure.status, err: failure.message, what },
      "Feishu send failed",
    );
    try {
      await api.send(
        to,
        "text",
        textContent(deliveryFailedText(failure.code ?? failure.status)),
        randomUUID(),
      );
    } catch {
      // Feishu is not taking messages for this chat at all; the log is all we can do.
    }
  };

  /** A first-seen event (redeliveries were dropped before), handled in the background. */
  const onEvent = async (event: ReceiveEvent) => {
    const messageId = event.message?.message_id;
    const parsed = parseReceiveEvent(event, botOpenId);
    if (parsed.kind === "ignore") {
      logger.debug({ reason: parsed.reason, messageId }, "event ignored");
      return;
    }
    const userId = parsed.kind === "message" ? parsed.message.userId : parsed.reply.userId;
    const chatId = parsed.kind === "message" ? parsed.message.chatId : parsed.reply.chatId;
    const to: ChatAddress = { platform: "feishu", userId, chatId };
    if (!options.access.allows(userId)) {
      logger.warn({ userId }, "message from a user not in ALLOWED_USERS");
      // Told once (per TTL): the seen-events store remembers it, across restarts too.
      if (!options.seen.checkAndRemember([refusedUserKey(userId)])) {
        await adapter.sendText(to, unknownUserText(userId)).catch(() => undefined);
      }
      return;
    }
    if (parsed.kind === "unsupported") {
      await adapter.sendText(to, unsupportedMessageText(parsed.messageType)).catch(() => undefined);
      return;
    }
    listener?.(parsed.message);
  };
  const handleInBackground = (event: ReceiveEvent) =>
    void onEvent(event).catch((error: unknown) => logger.error({ err: error }, "event handling failed"));

  const adapter: ChatAdapter = {
    platform: "feishu",

    async start(onMessage) {
      listener = onMessage;
      botOpenId = await api.botOpenId().catch((error: unknown) => {
        logger.warn(
          { err: toFeishuError(error).message },
          "could not read the bot's open_id; group @mentions of anyone will count",
        );
        return undefined;
      });
      if (options.delivery.mode !== "ws") return;
      const dispatcher = new lark.EventDispatcher({
        logger: larkLogger(logger),
        loggerLevel: lark.LoggerLevel.warn,
      }).register({
        // Acknowledge at once (Feishu redelivers after ~3 s); the work happens in the background.
        "im.message.receive_v1": async (data: unknown) => {
          const event = data as ReceiveEvent; // the SDK flattens header and event into one object
          const messageId = event.message?.message_id;
          if (options.seen.checkAndRemember(redeliveryKeys(event.event_id, messageId))) {
            logger.info({ eventId: event.event_id, messageId }, "redelivered event dropped");
            return;
          }
          handleInBackground(event);
        },
      });
      await new Promise<void>((resolve) => {
        wsClient = new lark.WSClient({
          appId: options.appId,
          appSecret: options.appSecret,
          domain: larkDomain(options.domain),
          logger: larkLogger(logger),
          loggerLevel: lark.LoggerLevel.warn,
          autoReconnect: true,
          onReady: () => resolve(),
          onReconnected: () => logger.info("Feishu long connection re-established"),
          onError: (error) => logger.error({ err: error.message }, "Feishu long connection gave up"),
        });
        void wsClient.start({ eventDispatcher: dispatcher });
      });
      logger.info({ mode: "ws" }, "Feishu long connection ready");
    },

    async stop() {
      listener = undefined;
      wsClient?.close({ force: true });
    },

    sendText(to, text, sendOptions) {
      return inOrder(to, async (): Promise<SentMessage> => {
        const target = recipient(to);
        let last = "";
        // Only the first part is the reply: the rest follow it in the chat.
        for (const [index, chunk] of splitForChat(text).entries()) {
          try {
            last =
              index === 0 && sendOptions?.replyTo
                ? await replyOne(target, sendOptions.replyTo, chunk)
                : await sendOne(target, chunk);
          } catch (error) {
            await reportFailure(target, error, "text");
            throw error;
          }
        }
        return { messageId: last };
      });
    },

    editText(to, messageId, text) {
      return inOrder(to, () => retrying(() => api.patchCard(messageId, markdownCard(text))));
    },

    sendFile(to, file: OutgoingFile) {
      return inOrder(to, async (): Promise<SentMessage> => {
        const target = recipient(to);
        const image = file.mimeType?.startsWith("image/") ?? false;
        const cap = image ? IMAGE_CAP : FILE_CAP;
        if (file.data.length > cap) {
          return { messageId: await sendOne(target, fileTooLargeText(file.name, file.data.length, cap)) };
        }
        try {
          if (image) {
            const key = await retrying(() => api.uploadImage(file.data));
            return {
              messageId: await retrying(() => api.send(target, "image", { image_key: key }, randomUUID())),
            };
          }
          const extension = file.name.split(".").pop()?.toLowerCase() ?? "";
          const key = await retrying(() =>
            api.uploadFile(file.data, file.name, FILE_TYPES[extension] ?? "stream"),
          );
          return {
            messageId: await retrying(() => api.send(target, "file", { file_key: key }, randomUUID())),
          };
        } catch (error) {
          await reportFailure(target, error, "file");
          throw error;
        }
      });
    },

    status() {
      return {
        platform: "feishu",
        mode: options.delivery.mode,
        connection: wsClient?.getConnectionStatus() ?? null,
      };
    },

    ...(options.delivery.mode === "webhook"
      ? {
          webhook: guardWebhook({
            path: "/webhook/feishu",
            verifier: feishuWebhookVerifier(options.delivery),
            maxAgeMs: options.delivery.maxAgeMs,
            clock: options.clock,
            seen: options.seen,
            acknowledge: { status: 200, body: { code: 0 } },
            deliver(body) {
              if (body.header?.event_type === "im.message.receive_v1" && body.event)
                handleInBackground(body.event);
            },
            logger,
          }),
        }
      : {}),
  };
  return adapter;
}

export { FeishuError };
