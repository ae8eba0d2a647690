import type { Agent } from "node:https";
import type { Logger } from "@phonework/runtime";
import { type PushPayload, pushPayload } from "./push-payload.ts";
import { covers, type PushStore } from "./push-store.ts";
import { webPushLibrary } from "./web-push-library.ts";

// Sends one push to each of a user's subscriptions: encrypted for that browser (aes128gcm) and
// signed with the router's VAPID key, by the web-push library. A 404 or 410 from the push service
// means the browser dropped the subscription: it is forgotten. Other failures are logged and lost
// (a push is a nudge; the console and the chat still have the news).

export interface PushSenderOptions {
  store: PushStore;
  /** VAPID's `sub`: a mailto: or https: address the push service can reach the operator at. */
  subject: string;
  logger: Logger;
  /** Whether a sign-in is still live (an expired one's subscriptions are not pushed to). */
  sessionIsLive?: (sessionId: string) => boolean;
  /** For the tests' push service (its certificate is the test CA's). */
  agent?: Agent;
  /** Seconds the push service may hold a push for a phone that is off. */
  ttlS?: number;
}

export class PushSender {
  constructor(private readonly options: PushSenderOptions) {}

  /**
   * Pushes `payload` to every live subscription of `userId` (with `nodeId`, those covering that
   * node); resolves to how many were accepted.
   */
  async sendToUser(userId: string, payload: PushPayload, nodeId?: string): Promise<number> {
    const { store, logger } = this.options;
    const body = pushPayload(payload);
    const live = store
      .forUser(userId)
      .filter((subscription) => this.options.sessionIsLive?.(subscription.sessionId) ?? true)
      .filter((subscription) => nodeId === undefined || covers(subscription, nodeId));
    if (live.length === 0) return 0;
    const [webpush, keys] = await Promise.all([webPushLibrary(), store.vapidKeys()]);
    const vapidDetails = { subject: this.options.subject, ...keys };
    const results = await Promise.all(
      live.map(async (subscription) => {
        try {
          await webpush.sendNotification(subscription, body, {
            vapidDetails,
            TTL: this.options.ttlS ?? 3600,
            contentEncoding: "aes128gcm",
            ...(this.options.agent ? { agent: this.options.agent } : {}),
          });
          return true;
        } catch (error) {
          const status = (error as { statusCode?: number }).statusCode;
          if (status === 404 || status === 410) {
            store.dropEndpoint(subscription.endpoint);
            logger.info({ userId, status }, "push subscription gone; forgotten");
          } else logger.warn({ userId, status, err: (error as Error).message }, "push not sent");
          return false;
        }
      }),
    );
    return results.filter(Boolean).length;
  }
}
