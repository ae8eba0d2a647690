import type { Clock, Logger } from "@phonework/runtime";
import type { WebhookEndpoint } from "../platform-adapter.ts";
import { guardWebhook } from "../webhook/guard-webhook.ts";
import type { DeliveryHandler } from "./delivery-handler.ts";
import { slackWebhookVerifier } from "./webhook-verifier.ts";

// HTTP mode: Slack posts events, interactions and slash commands to /webhook/<name>, through the
// shared webhook door. The 200 is the acknowledgement: sent once the message is stored; a 500 when
// it could not be, and Slack sends it again. A button press is answered at once and handled after.

export interface SlackWebhookOptions {
  path: string;
  signingSecret: string;
  maxAgeMs: number;
  clock: Clock;
  seen: { checkAndRemember(ids: string[]): boolean; forget(ids: string[]): void };
  /** The handler while the adapter receives; undefined before start and after stop. */
  handler(): DeliveryHandler | undefined;
  logger: Logger;
}

export function createSlackWebhook(options: SlackWebhookOptions): WebhookEndpoint {
  const guarded = guardWebhook({
    path: options.path,
    verifier: slackWebhookVerifier(options.signingSecret),
    maxAgeMs: options.maxAgeMs,
    clock: options.clock,
    seen: options.seen,
    acknowledge: { status: 200, body: "" },
    async deliver(delivery) {
      const handle = options.handler();
      if (!handle) throw new Error("the Slack adapter is not receiving");
      const handled = handle(delivery.kind, delivery.payload);
      await handled.stored;
      if (handled.later) void handled.later();
    },
    logger: options.logger,
  });
  return guarded;
}
