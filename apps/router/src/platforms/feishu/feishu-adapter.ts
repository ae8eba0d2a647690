import type * as lark from "@larksuiteoapi/node-sdk";
import type { Clock, Logger } from "@phonework/runtime";
import { BoundedMap } from "../../storage/bounded-map.ts";
import type { SeenEvents } from "../../storage/seen-events.ts";
import type {
  Capabilities,
  ChannelRef,
  Destination,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
  PlatformSendOptions,
} from "../platform-adapter.ts";
import { ButtonCards } from "./button-cards.ts";
import { markdownCard } from "./card.ts";
import { CardSender, failureLog } from "./card-sender.ts";
import { FeishuApi, type Recipient } from "./feishu-api.ts";
import { asPlatformCall, FeishuError, toFeishuError } from "./feishu-error.ts";
import { parseReceiveEvent, type ReceiveEvent } from "./incoming-event.ts";
import { createLarkClient } from "./lark-client.ts";
import { pressHandler } from "./press-handler.ts";
import { type FeishuDelivery, type FeishuHandlers, feishuWebhook, openLongConnection } from "./receiving.ts";
import { downloadResource } from "./resource-download.ts";

// Feishu (Lark) as a platform adapter: events and card callbacks over the SDK's long connection or
// a signed webhook, translated to ChannelMessages and ButtonPresses; answers sent as markdown cards
// (with buttons; replying to the message they answer, or in the thread of a main message), patched
// in place for progress and after a press; files uploaded and downloaded. Retries, splitting and
// access are the shared chat layer's; this file wires, and only speaks Feishu.

export type { FeishuDelivery };

export interface FeishuAdapterOptions {
  /** The adapter's name in the config (qualifies its ids). */
  name: string;
  appId: string;
  appSecret: string;
  domain: string;
  delivery: FeishuDelivery;
  /** Webhook replays and redelivered card callbacks are remembered here (router.db). */
  seen: SeenEvents;
  clock: Clock;
  logger: Logger;
}

const MB = 1024 * 1024;

export const FEISHU_CAPABILITIES: Capabilities = {
  maxMessageLength: 4000,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "feishu-md",
  // A turn's details go in the thread under its main message (reply_in_thread): the chat shows
  // the answer with "N replies" under it instead of the details interleaved with the conversation.
  threads: "threads",
  filesIn: true,
  voiceIn: true,
  imagesIn: true,
  // Outgoing: Feishu takes files up to 30 MB and images up to 10 MB; incoming downloads are held
  // to the same (Feishu would serve up to 100 MB).
  maxFileBytes: 30 * MB,
  maxImageBytes: 10 * MB,
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

const recipient = (to: Destination): Recipient =>
  to.chatId
    ? { receiveIdType: "chat_id", receiveId: to.chatId }
    : { receiveIdType: "open_id", receiveId: to.userId };

export function createFeishuAdapter(options: FeishuAdapterOptions): PlatformAdapter {
  const { logger } = options;
  const client = createLarkClient(options);
  const api = new FeishuApi(client);
  const sender = new CardSender(api, logger);
  const cards = new ButtonCards();
  const chatTypes = new BoundedMap<string, ChannelRef["type"]>(2_000);
  let events: PlatformEvents | undefined;
  let botOpenId: string | undefined;
  let wsClient: lark.WSClient | undefined;

  /** Hands a first-seen event to the shared layer, which stores it before we return (the ack). */
  const message = async (event: ReceiveEvent): Promise<void> => {
    const parsed = parseReceiveEvent(event, botOpenId);
    if (parsed.kind === "ignore") {
      logger.debug({ reason: parsed.reason, messageId: event.message?.message_id }, "event ignored");
      return;
    }
    chatTypes.set(parsed.message.channel.id, parsed.message.channel.type);
    await events?.message(parsed.message);
  };
  const pressDeps = { events: () => events, cards, chatTypes, logger };
  // A webhook's callbacks were checked for replays at its door, with the same keys.
  const wsHandlers: FeishuHandlers = {
    message,
    cardAction: pressHandler({ ...pressDeps, seen: options.seen }),
  };
  const webhookHandlers: FeishuHandlers = { message, cardAction: pressHandler(pressDeps) };

  return {
    name: options.name,
    type: "feishu",
    capabilities: FEISHU_CAPABILITIES,

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
      await openLongConnection(options, wsHandlers, (ws) => {
        wsClient = ws; // closed by stop(), also while still connecting
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
      const rows = sendOptions.buttons;
      const card = markdownCard(text, rows);
      const under = sendOptions.thread ?? sendOptions.replyTo;
      return asPlatformCall(async () => {
        const messageId = under
          ? await sender.reply(target, under, { card, text, uuid, inThread: !!sendOptions.thread })
          : await sender.send(target, card, text, uuid);
        const privateChat = !to.chatId || chatTypes.get(to.chatId) === "private";
        cards.sent(messageId, { text, rows, owner: to.userId, privateChat });
        return { messageId };
      });
    },

    edit(to, messageId, text, editOptions) {
      const rows = editOptions?.buttons;
      return asPlatformCall(async () => {
        const as = await sender.edit(messageId, markdownCard(text, rows), text);
        const privateChat = cards.privateChat(messageId) ?? !to.chatId;
        cards.sent(messageId, {
          text,
          rows: as === "card" ? rows : undefined,
          owner: to.userId,
          privateChat,
        });
      });
    },

    sendFile(to, file: OutgoingFile, sendOptions) {
      const target = recipient(to);
      const uuid = sendOptions.idempotencyKey;
      return asPlatformCall(async () => ({ messageId: await sendFeishuFile(api, target, file, uuid) }));
    },

    download: (attachment) => downloadResource(client, attachment.ref, FEISHU_CAPABILITIES),

    status() {
      return {
        platform: "feishu",
        name: options.name,
        mode: options.delivery.mode,
        connection: wsClient?.getConnectionStatus() ?? null,
      };
    },

    ...(options.delivery.mode === "webhook"
      ? { webhook: feishuWebhook(options, options.delivery, webhookHandlers) }
      : {}),
  };
}

export { FeishuError };
