import * as lark from "@larksuiteoapi/node-sdk";
import type { Clock, Logger } from "@phonework/runtime";
import type { SeenEvents } from "../../storage/seen-events.ts";
import type { WebhookEndpoint } from "../platform-adapter.ts";
import { guardWebhook } from "../webhook/guard-webhook.ts";
import type { CardCallbackAnswer } from "./card-action.ts";
import type { ReceiveEvent } from "./incoming-event.ts";
import { larkDomain, larkLogger } from "./lark-client.ts";
import { type FeishuWebhookSecrets, feishuWebhookVerifier } from "./webhook-verifier.ts";

// How Feishu's pushes reach the adapter: messages (im.message.receive_v1) and button presses on
// cards (the card.action.trigger callback), over the SDK's long connection or a verified webhook.
// Both ways take a message once it is stored, and answer a press with what Feishu shows for it.

/** How events arrive: the long connection, or signed webhooks checked against these secrets. */
export type FeishuDelivery = { mode: "ws" } | ({ mode: "webhook"; maxAgeMs: number } & FeishuWebhookSecrets);

export interface FeishuHandlers {
  /** Resolves once the message is stored (the ack); rejects when it must come again. */
  message(event: ReceiveEvent): Promise<void>;
  /** A card callback (the SDK's flattened view, or a webhook's `{ header, event }`), answered. */
  cardAction(raw: unknown): Promise<CardCallbackAnswer>;
}

export const MESSAGE_EVENT = "im.message.receive_v1";
export const CARD_ACTION_EVENT = "card.action.trigger";

/**
 * The SDK's long connection (no public URL needed), resolved once it is ready. Each event is
 * stored before its handler returns (the ack); Feishu redelivers after ~3 s without one. What a
 * card callback's handler returns is sent back as its answer.
 */
export async function openLongConnection(
  options: { appId: string; appSecret: string; domain: string; logger: Logger },
  handlers: FeishuHandlers,
  opened: (client: lark.WSClient) => void,
): Promise<void> {
  const { logger } = options;
  const dispatcher = new lark.EventDispatcher({
    logger: larkLogger(logger),
    loggerLevel: lark.LoggerLevel.warn,
  }).register({
    [MESSAGE_EVENT]: (data: unknown) => handlers.message(data as ReceiveEvent),
    [CARD_ACTION_EVENT]: (data: unknown) => handlers.cardAction(data),
  } as Record<string, (data: unknown) => Promise<unknown>>);
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

/**
 * Events and card callbacks posted to the router (one request URL for both in the developer
 * console): through the shared webhook door — signature, token, age window, seen before — then
 * like the long connection's. A callback's answer is the response body.
 */
export function feishuWebhook(
  options: { clock: Clock; seen: SeenEvents; logger: Logger },
  delivery: Extract<FeishuDelivery, { mode: "webhook" }>,
  handlers: FeishuHandlers,
): WebhookEndpoint {
  return guardWebhook({
    path: "/webhook/feishu",
    verifier: feishuWebhookVerifier(delivery),
    maxAgeMs: delivery.maxAgeMs,
    clock: options.clock,
    seen: options.seen,
    acknowledge: { status: 200, body: { code: 0 } },
    async deliver(body) {
      const type = body.header?.event_type;
      if (type === CARD_ACTION_EVENT) return { status: 200, body: await handlers.cardAction(body) };
      if (type === MESSAGE_EVENT && body.event) await handlers.message(body.event);
      return undefined;
    },
    logger: options.logger,
  });
}
