import { createHmac } from "node:crypto";
import { sameSecret } from "@phonework/runtime";
import {
  rejected,
  singleHeader,
  type Verification,
  type WebhookRequest,
  type WebhookVerifier,
} from "../webhook/webhook-verifier.ts";
import type { DeliveryKind } from "./delivery-handler.ts";

// Slack's HTTP deliveries (Events API, interactivity, slash commands), checked with its v0 scheme:
// X-Slack-Signature = "v0=" + hex(HMAC-SHA256(signing secret, "v0:" + X-Slack-Request-Timestamp +
// ":" + raw body)), compared in constant time. The freshness window and replay dedupe are the shared
// webhook door's (guard-webhook.ts). Events come as JSON; interactivity as a form with one `payload`
// field of JSON; slash commands as a plain form.

export interface HttpDelivery {
  kind: DeliveryKind;
  payload: unknown;
}

/** Signed times are Unix seconds. */
const TIMESTAMP = /^\d{1,12}$/;

export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a body holds: a delivery with the ids a replay of it would carry, or no event at all. */
type Parsed =
  | { kind: "delivery"; delivery: HttpDelivery; ids: string[] }
  | Exclude<Verification<HttpDelivery>, { kind: "event" }>;

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** The delivery in a form body: an interaction (its `payload` field) or a slash command. */
function formDelivery(rawBody: string): Parsed {
  const form = new URLSearchParams(rawBody);
  const payloadField = form.get("payload");
  if (payloadField !== null) {
    const payload = parseJson(payloadField);
    if (!isObject(payload)) return rejected(400, "interactive payload is not a JSON object");
    const trigger = idOf(payload.trigger_id);
    const ids = trigger ? [`slack:action:${trigger}`] : [];
    return { kind: "delivery", delivery: { kind: "interactive", payload }, ids };
  }
  if (form.get("command") === null)
    return rejected(400, "form body is neither an interaction nor a slash command");
  const payload = Object.fromEntries(form.entries());
  const trigger = idOf(payload.trigger_id);
  const ids = trigger ? [`slack:slash:${trigger}`] : [];
  return { kind: "delivery", delivery: { kind: "slash_commands", payload }, ids };
}

/** The delivery in a JSON body: an event, or the url_verification handshake. */
function jsonDelivery(rawBody: string): Parsed {
  const body = parseJson(rawBody);
  if (!isObject(body)) return rejected(400, "body is not a JSON object");
  if (body.type === "url_verification") {
    if (typeof body.challenge !== "string") return rejected(400, "url_verification without a challenge");
    return { kind: "handshake", response: { status: 200, body: { challenge: body.challenge } } };
  }
  if (body.type !== "event_callback") return rejected(400, `unknown delivery type ${String(body.type)}`);
  const eventId = idOf(body.event_id);
  const ids = eventId ? [`slack:event:${eventId}`] : [];
  return { kind: "delivery", delivery: { kind: "events_api", payload: body }, ids };
}

export function slackWebhookVerifier(signingSecret: string): WebhookVerifier<HttpDelivery> {
  return {
    verify(request: WebhookRequest) {
      const signature = singleHeader(request, "x-slack-signature");
      const timestamp = singleHeader(request, "x-slack-request-timestamp");
      if (signature === undefined) return rejected(401, "missing X-Slack-Signature");
      if (timestamp === undefined || !TIMESTAMP.test(timestamp))
        return rejected(401, "missing or malformed X-Slack-Request-Timestamp");
      if (!sameSecret(signature, slackSignature(signingSecret, timestamp, request.rawBody)))
        return rejected(401, "bad signature");
      const contentType = singleHeader(request, "content-type") ?? "";
      const parsed = contentType.startsWith("application/x-www-form-urlencoded")
        ? formDelivery(request.rawBody)
        : jsonDelivery(request.rawBody);
      if (parsed.kind !== "delivery") return parsed;
      return { kind: "event", event: parsed.delivery, signedAtMs: Number(timestamp) * 1000, ids: parsed.ids };
    },
  };
}
