import type { Clock, Logger } from "@phonework/runtime";
import type { WebhookEndpoint } from "../platform-adapter.ts";
import type { WebhookResponse, WebhookVerifier } from "./webhook-verifier.ts";

// The one door every platform's webhook goes through: the platform's verifier authenticates the
// request, then the shared rules apply — an event signed outside the freshness window is refused
// (a captured request cannot be replayed later), an event already seen is acknowledged and
// dropped (a replay inside the window, or the platform's own redelivery), and every refusal is
// logged at warn with its reason.

export interface GuardedWebhookOptions<Event> {
  path: string;
  verifier: WebhookVerifier<Event>;
  /** How far the signed time may be from now, either way (clock skew, delivery delay). */
  maxAgeMs: number;
  clock: Clock;
  /** Remembers ids; true when any of them was seen before. `forget` undoes it for an event not taken. */
  seen: { checkAndRemember(ids: string[]): boolean; forget(ids: string[]): void };
  /** What the platform expects back for an event it must not send again. */
  acknowledge: WebhookResponse;
  /**
   * Takes an authenticated, fresh, first-seen event; resolves once it is stored (quickly: the
   * platform waits for the answer). A rejection answers 500, so the platform delivers it again.
   * It may resolve with the answer to give instead of `acknowledge` (a button press answered with
   * what to show, as Feishu's card callbacks are).
   */
  deliver(event: Event): Promise<void> | Promise<WebhookResponse | undefined>;
  logger: Logger;
}

/** Why a signed time is outside the window, or undefined when it is inside. */
export function outsideWindow(signedAtMs: number, nowMs: number, maxAgeMs: number): string | undefined {
  const limit = `limit ${Math.round(maxAgeMs / 1000)} s`;
  if (!Number.isFinite(signedAtMs)) return "signed timestamp is not a time";
  if (nowMs - signedAtMs > maxAgeMs)
    return `signed timestamp is ${Math.round((nowMs - signedAtMs) / 1000)} s old (${limit})`;
  if (signedAtMs - nowMs > maxAgeMs)
    return `signed timestamp is ${Math.round((signedAtMs - nowMs) / 1000)} s in the future (${limit})`;
  return undefined;
}

export function guardWebhook<Event>(options: GuardedWebhookOptions<Event>): WebhookEndpoint {
  const { path, logger } = options;
  const refuse = (status: number, reason: string): WebhookResponse => {
    logger.warn({ path, status, reason }, "webhook rejected");
    return { status, body: { error: reason } };
  };
  return {
    path,
    async handle(request) {
      const verified = options.verifier.verify(request);
      if (verified.kind === "rejected") return refuse(verified.status, verified.reason);
      if (verified.kind === "handshake") {
        logger.info({ path }, "webhook handshake answered");
        return verified.response;
      }
      const stale = outsideWindow(verified.signedAtMs, options.clock.now(), options.maxAgeMs);
      if (stale) return refuse(401, stale);
      if (verified.ids.length > 0 && options.seen.checkAndRemember(verified.ids)) {
        logger.info({ path, ids: verified.ids }, "webhook event seen before; dropped");
        return options.acknowledge;
      }
      let answer: WebhookResponse | undefined;
      try {
        answer = (await options.deliver(verified.event)) ?? undefined;
      } catch (error) {
        // Not stored: forgotten again, so the platform's redelivery is taken, not dropped as a replay.
        options.seen.forget(verified.ids);
        logger.error({ path, err: error }, "webhook event could not be stored; the platform will resend it");
        return { status: 500, body: { error: "not stored; send it again" } };
      }
      return answer ?? options.acknowledge;
    },
  };
}
