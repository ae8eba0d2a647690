import * as lark from "@larksuiteoapi/node-sdk";
import type { Clock, Logger } from "@phonework/runtime";
import type { SeenEvents } from "../../storage/seen-events.ts";
import type {
  Capabilities,
  Destination,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
  PlatformSendOptions,
  WebhookEndpoint,
} from "../platform-adapter.ts";
import { guardWebhook } from "../webhook/guard-webhook.ts";
import { markdownCard, textContent } from "./card.ts";
import { FeishuApi, type Recipient } from "./feishu-api.ts";
import { asPlatformCall, FeishuError, toFeishuError } from "./feishu-error.ts";
import { parseReceiveEvent, type ReceiveEvent } from "./incoming-event.ts";
import { createLarkClient, larkDomain, larkLogger } from "./lark-client.ts";
import { type FeishuWebhookSecrets, feishuWebhookVerifier } from "./webhook-verifier.ts";

// Feishu (Lark) as a platform adapter: events over the SDK's long connection or a signed webhook,
// translated to ChannelMessages; answers sent as markdown cards (replying to the message they
// answer), patched in place for progress; files uploaded. Retries, splitting and access are the
// shared chat layer's; this file only speaks Feishu.

/** How events arrive: the long connection, or signed webhooks checked against these secrets. */
export type FeishuDelivery = { mode: "ws" } | ({ mode: "webhook"; maxAgeMs: number } & FeishuWebhookSecrets);

export interface FeishuAdapterOptions {
  /** The adapter's name in the config (qualifies its ids). */
  name: string;
  appId: string;
  appSecret: string;
  domain: string;
  delivery: FeishuDelivery;
  /** Webhook replays are remembered here (router.db). */
  seen: SeenEvents;
  clock: Clock;
  logger: Logger;
}

const CAPABILITIES: Capabilities = {
  maxMessageLength: 4000,
  canEdit: true,
  canSendButtons: false,
  canReply: true,
  markdown: "feishu-md",
  threads: "replies",
  filesIn: false,
  voiceIn: false,
  maxFileBytes: 30 * 1024 * 1024,
  maxImageBytes: 10 * 1024 * 1024,
};

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

/** What is logged of a failed call: Feishu's answer, never what was sent (see feishu-error.ts). */
const failureLog = (failure: FeishuError) => ({
  status: failure.status,
  code: failure.code,
  err: failure.message,
  logId: failure.logId,
});

/**
 * The SDK's long connection (no public URL needed), resolved once it is ready. Each event is
 * stored before its handler returns (the ack); Feishu redelivers after ~3 s without one.
 */
async function openLongConnection(
  options: FeishuAdapterOptions,
  receive: (event: ReceiveEvent) => Promise<void>,
  opened: (client: lark.WSClient) => void,
): Promise<void> {
  const { logger } = options;
  const dispatcher = new lark.EventDispatcher({
    logger: larkLogger(logger),
    loggerLevel: lark.LoggerLevel.warn,
  }).register({
    "im.message.receive_v1": (data: unknown) => receive(data as ReceiveEvent),
  });
  await new Promise<void>((resolve) => {
    const client = new lark.WSClient({
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
    opened(client);
    void client.start({ eventDispatcher: dispatcher });
  });
  logger.info({ mode: "ws" }, "Feishu long connection ready");
}

/** An image as an image message, anything else as a file of the type its extension says. */
async function sendFeishuFile(
  api: FeishuApi,
  to: Recipient,
  file: OutgoingFile,
  uuid: string,
): Promise<string> {
  if (file.mimeType?.startsWith("image/")) {
    const key = await api.uploadImage(file.data);
    return api.send(to, "image", { image_key: key }, uuid);
  }
  const extension = file.name.split(".").pop()?.toLowerCase() ?? "";
  const key = await api.uploadFile(file.data, file.name, FILE_TYPES[extension] ?? "stream");
  return api.send(to, "file", { file_key: key }, uuid);
}

/** Events posted to the router: through the shared webhook door, then as the long connection's. */
function feishuWebhook(
  options: FeishuAdapterOptions,
  delivery: Extract<FeishuDelivery, { mode: "webhook" }>,
  receive: (event: ReceiveEvent) => Promise<void>,
): WebhookEndpoint {
  return guardWebhook({
    path: "/webhook/feishu",
    verifier: feishuWebhookVerifier(delivery),
    maxAgeMs: delivery.maxAgeMs,
    clock: options.clock,
    seen: options.seen,
    acknowledge: { status: 200, body: { code: 0 } },
    deliver(body) {
      if (body.header?.event_type !== "im.message.receive_v1" || !body.event) return Promise.resolve();
      return receive(body.event);
    },
    logger: options.logger,
  });
}

export function createFeishuAdapter(options: FeishuAdapterOptions): PlatformAdapter {
  const { logger } = options;
  const client = createLarkClient(options);
  const api = new FeishuApi(client);
  let events: PlatformEvents | undefined;
  let botOpenId: string | undefined;
  let wsClient: lark.WSClient | undefined;

  const recipient = (to: Destination): Recipient =>
    to.chatId
      ? { receiveIdType: "chat_id", receiveId: to.chatId }
      : { receiveIdType: "open_id", receiveId: to.userId };

  /** A markdown card, or plain text if Feishu refuses the card for its content. */
  const sendCard = async (to: Recipient, text: string, uuid: string): Promise<string> => {
    try {
      return await api.send(to, "interactive", markdownCard(text), uuid);
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      logger.warn(failureLog(failure), "card refused; sending as text");
      return api.send(to, "text", textContent(text), `${uuid}-text`);
    }
  };

  /** A card replying to `messageId`; refused for good (the message was recalled…), a plain message. */
  const replyCard = async (to: Recipient, messageId: string, text: string, uuid: string) => {
    try {
      return await api.reply(messageId, "interactive", markdownCard(text), uuid);
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      logger.warn({ ...failureLog(failure), messageId }, "reply refused; sending as a plain message");
      return sendCard(to, text, `${uuid}-send`);
    }
  };

  /** Hands a first-seen event to the shared layer, which stores it before we return (the ack). */
  const receive = async (event: ReceiveEvent): Promise<void> => {
    const parsed = parseReceiveEvent(event, botOpenId);
    if (parsed.kind === "ignore") {
      logger.debug({ reason: parsed.reason, messageId: event.message?.message_id }, "event ignored");
      return;
    }
    await events?.message(parsed.message);
  };

  return {
    name: options.name,
    type: "feishu",
    capabilities: CAPABILITIES,

    async start(platformEvents) {
      events = platformEvents;
      botOpenId = await api.botOpenId().catch((error: unknown) => {
        logger.warn(
          failureLog(toFeishuError(error)),
          "could not read the bot's open_id; group @mentions of anyone will count",
        );
        return undefined;
      });
      if (options.delivery.mode !== "ws") return;
      await openLongConnection(options, receive, (client) => {
        wsClient = client; // closed by stop(), also while still connecting
      });
    },

    async stop() {
      events = undefined;
      wsClient?.close({ force: true });
    },

    send(to, text, sendOptions: PlatformSendOptions) {
      const target = recipient(to);
      // Feishu sends a uuid at most once: the shared layer keeps the key across retries.
      const uuid = sendOptions.idempotencyKey;
      return asPlatformCall(async () => ({
        messageId: sendOptions.replyTo
          ? await replyCard(target, sendOptions.replyTo, text, uuid)
          : await sendCard(target, text, uuid),
      }));
    },

    edit(_to, messageId, text) {
      return asPlatformCall(() => api.patchCard(messageId, markdownCard(text)));
    },

    sendFile(to, file: OutgoingFile, sendOptions) {
      const target = recipient(to);
      const uuid = sendOptions.idempotencyKey;
      return asPlatformCall(async () => ({ messageId: await sendFeishuFile(api, target, file, uuid) }));
    },

    status() {
      return {
        platform: "feishu",
        name: options.name,
        mode: options.delivery.mode,
        connection: wsClient?.getConnectionStatus() ?? null,
      };
    },

    ...(options.delivery.mode === "webhook"
      ? { webhook: feishuWebhook(options, options.delivery, receive) }
      : {}),
  };
}

export { FeishuError };
