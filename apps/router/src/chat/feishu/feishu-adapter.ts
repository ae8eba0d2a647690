import { randomUUID } from "node:crypto";
import * as lark from "@larksuiteoapi/node-sdk";
import { KeyedQueue, type Logger } from "@phonework/runtime";
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
import { markdownCard, textContent } from "./card.ts";
import { FeishuApi, type Recipient } from "./feishu-api.ts";
import { FeishuError, toFeishuError } from "./feishu-error.ts";
import { parseReceiveEvent, type ReceiveEvent } from "./incoming-event.ts";
import { createLarkClient, larkDomain, larkLogger } from "./lark-client.ts";
import type { SeenEvents } from "./seen-events.ts";
import { verifyWebhook } from "./webhook-verifier.ts";
import { type RetryPolicy, withRetry } from "./with-retry.ts";

// Feishu (Lark) as a chat platform: events over the SDK's long connection or a webhook;
// replies as markdown cards, split when long; files uploaded; one serial send queue per chat.

export interface FeishuAdapterOptions {
  appId: string;
  appSecret: string;
  domain: string;
  mode: "ws" | "webhook";
  encryptKey: string | undefined;
  verificationToken: string | undefined;
  access: AccessControl;
  seen: SeenEvents;
  retry: RetryPolicy;
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

  const onEvent = async (event: ReceiveEvent & { header?: { event_id?: string } }) => {
    const eventId = event.header?.event_id ?? event.event_id;
    const messageId = event.message?.message_id;
    const keys = [eventId && `e:${eventId}`, messageId && `m:${messageId}`].filter((k): k is string =>
      Boolean(k),
    );
    if (keys.length > 0 && options.seen.checkAndRemember(keys)) {
      logger.info({ eventId, messageId }, "redelivered event dropped");
      return;
    }
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
      if (!options.seen.checkAndRemember([`u:${userId}`])) {
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
      if (options.mode !== "ws") return;
      const dispatcher = new lark.EventDispatcher({
        logger: larkLogger(logger),
        loggerLevel: lark.LoggerLevel.warn,
      }).register({
        // Acknowledge at once (Feishu redelivers after ~3 s); the work happens in the background.
        "im.message.receive_v1": async (data: unknown) => {
          void onEvent(data as ReceiveEvent).catch((error: unknown) =>
            logger.error({ err: error }, "event handling failed"),
          );
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

    sendText(to, text) {
      return inOrder(to, async (): Promise<SentMessage> => {
        const target = recipient(to);
        let last = "";
        for (const chunk of splitForChat(text)) {
          try {
            last = await sendOne(target, chunk);
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
      return { platform: "feishu", mode: options.mode, connection: wsClient?.getConnectionStatus() ?? null };
    },

    ...(options.mode === "webhook"
      ? {
          webhook: {
            path: "/webhook/feishu",
            async handle({ headers, rawBody }) {
              const result = verifyWebhook(headers, rawBody, options);
              if (result.kind === "rejected") {
                logger.warn({ reason: result.reason }, "webhook rejected");
                return { status: result.status, body: { error: result.reason } };
              }
              if (result.kind === "challenge") return { status: 200, body: { challenge: result.challenge } };
              const body = result.body as {
                header?: { event_type?: string; event_id?: string };
                event?: ReceiveEvent;
              };
              if (body.header?.event_type === "im.message.receive_v1" && body.event) {
                const event = { ...body.event, header: body.header };
                void onEvent(event).catch((error: unknown) =>
                  logger.error({ err: error }, "event handling failed"),
                );
              }
              return { status: 200, body: { code: 0 } };
            },
          },
        }
      : {}),
  };
  return adapter;
}

export { FeishuError };
