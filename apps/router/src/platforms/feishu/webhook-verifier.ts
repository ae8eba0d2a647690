import { createDecipheriv, createHash } from "node:crypto";
import { sameSecret } from "@phonework/runtime";
import {
  rejected,
  singleHeader,
  type Verification,
  type WebhookRequest,
  type WebhookVerifier,
} from "../webhook/webhook-verifier.ts";
import { type ReceiveEvent, redeliveryKeys } from "./incoming-event.ts";

// Feishu's HTTP event delivery, checked by hand: with an Encrypt Key set (which webhook mode
// requires) Feishu encrypts every body and signs every event with
// X-Lark-Signature = sha256hex(timestamp + nonce + encryptKey + rawBody) — over the RAW body (the
// SDK re-serializes JSON before hashing) — and puts the verification token inside (the SDK never
// checks it on events). The url_verification challenge alone comes unsigned: it is accepted only
// when it decrypts with the key and carries the token.

export interface FeishuWebhookSecrets {
  encryptKey: string;
  verificationToken: string;
}

/** A decrypted schema 2.0 event, as far as the router reads it. */
export interface FeishuEnvelope {
  header?: { event_type?: string; event_id?: string; token?: string };
  event?: ReceiveEvent;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** base64(iv ‖ AES-256-CBC(sha256(key), iv, json)) → the JSON object, or undefined. */
export function decryptObject(encrypted: string, encryptKey: string): Json | undefined {
  const buffer = Buffer.from(encrypted, "base64");
  if (buffer.length < 32 || buffer.length % 16 !== 0) return undefined;
  try {
    const key = createHash("sha256").update(encryptKey).digest();
    const decipher = createDecipheriv("aes-256-cbc", key, buffer.subarray(0, 16));
    const plain = Buffer.concat([decipher.update(buffer.subarray(16)), decipher.final()]);
    return parseObject(plain.toString("utf8"));
  } catch {
    return undefined;
  }
}

export function feishuSignature(
  timestamp: string,
  nonce: string,
  encryptKey: string,
  rawBody: string,
): string {
  return createHash("sha256")
    .update(timestamp + nonce + encryptKey + rawBody)
    .digest("hex");
}

/** Schema 2.0 carries the token in its header; the challenge (and schema 1.0) at the top. */
const tokenOf = (body: Json): unknown => (isObject(body.header) ? body.header.token : body.token);

/** Signed times are Unix seconds; anything else is not Feishu's. */
const TIMESTAMP = /^\d{1,12}$/;

export function feishuWebhookVerifier(secrets: FeishuWebhookSecrets): WebhookVerifier<FeishuEnvelope> {
  const { encryptKey, verificationToken } = secrets;

  /**
   * Unsigned: only this app's challenge gets through. Every failure gets the same answer, so an
   * unauthenticated sender learns nothing about why (no padding oracle on the decryption).
   */
  const challenge = (encrypted: string): Verification<FeishuEnvelope> => {
    const body = decryptObject(encrypted, encryptKey);
    const valid =
      body?.type === "url_verification" &&
      typeof body.challenge === "string" &&
      sameSecret(tokenOf(body), verificationToken);
    if (!valid || !body) return rejected(401, "unsigned request that is not this app's url_verification");
    return { kind: "handshake", response: { status: 200, body: { challenge: body.challenge } } };
  };

  return {
    verify(request: WebhookRequest) {
      const outer = parseObject(request.rawBody);
      if (typeof outer?.encrypt !== "string")
        return rejected(400, 'body is not {"encrypt": "…"} (Feishu encrypts every delivery)');
      const signature = singleHeader(request, "x-lark-signature");
      if (signature === undefined) return challenge(outer.encrypt);
      const timestamp = singleHeader(request, "x-lark-request-timestamp");
      const nonce = singleHeader(request, "x-lark-request-nonce");
      if (timestamp === undefined || !TIMESTAMP.test(timestamp))
        return rejected(401, "missing or malformed X-Lark-Request-Timestamp");
      if (nonce === undefined) return rejected(401, "missing X-Lark-Request-Nonce");
      if (!sameSecret(signature, feishuSignature(timestamp, nonce, encryptKey, request.rawBody)))
        return rejected(401, "bad signature");
      const body = decryptObject(outer.encrypt, encryptKey);
      if (!body) return rejected(400, "signed, but cannot be decrypted with FEISHU_ENCRYPT_KEY");
      if (!sameSecret(tokenOf(body), verificationToken)) return rejected(401, "verification token mismatch");
      if (body.type === "url_verification") return challenge(outer.encrypt);
      const envelope = body as FeishuEnvelope;
      return {
        kind: "event",
        event: envelope,
        signedAtMs: Number(timestamp) * 1000,
        ids: redeliveryKeys(envelope.header?.event_id, envelope.event?.message?.message_id),
      };
    },
  };
}
