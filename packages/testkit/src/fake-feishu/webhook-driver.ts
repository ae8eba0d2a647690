import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { hex } from "./ids.ts";

// What Feishu's event push sends to an app's request URL: compact JSON (or, with an Encrypt Key,
// `{"encrypt": base64(iv ‖ AES-256-CBC(sha256(key), iv, json))}`), signed with
// X-Lark-Signature = sha256hex(timestamp + nonce + key + rawBody). The url_verification challenge
// is sent without the X-Lark-Request-* and X-Lark-Signature headers, as Feishu does.

export interface WebhookOptions {
  /** The app's Encrypt Key: encrypts the body and signs the request. */
  encryptKey?: string;
  /** Sign with this key instead (e.g. a key the app does not have); without encryptKey the body stays plain. */
  signWith?: string;
  /** Send a signature that cannot verify. */
  badSignature?: boolean;
  /** Leave out the signature headers (default: only for a url_verification challenge). */
  unsigned?: boolean;
  /** X-Lark-Request-Timestamp in Unix seconds (default: now), which the signature covers. */
  timestamp?: number;
}

/** A request as it goes over the wire, kept so a test can send the very same bytes again. */
export interface WebhookRequest {
  headers: Record<string, string>;
  rawBody: string;
}

export interface WebhookResponse {
  status: number;
  /** Parsed JSON when the answer is JSON, otherwise the raw text ("" for an empty body). */
  body: unknown;
}

export function encryptEvent(encryptKey: string, plaintext: string): string {
  const key = createHash("sha256").update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, "utf8"), cipher.final()]).toString("base64");
}

export function signWebhook(timestamp: string, nonce: string, key: string, rawBody: string): string {
  return createHash("sha256")
    .update(timestamp + nonce + key + rawBody)
    .digest("hex");
}

export function buildWebhookRequest(event: object, options: WebhookOptions = {}): WebhookRequest {
  const plaintext = JSON.stringify(event);
  const rawBody = options.encryptKey
    ? JSON.stringify({ encrypt: encryptEvent(options.encryptKey, plaintext) })
    : plaintext;
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "Go-http-client/1.1",
    "x-request-id": hex(16),
  };
  const challenge = (event as { type?: unknown }).type === "url_verification";
  if (options.unsigned ?? challenge) return { headers, rawBody };
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = hex(8);
  headers["x-lark-request-timestamp"] = timestamp;
  headers["x-lark-request-nonce"] = nonce;
  const signingKey = options.signWith ?? options.encryptKey;
  if (signingKey !== undefined || options.badSignature) {
    const signature = signWebhook(timestamp, nonce, signingKey ?? "", rawBody);
    headers["x-lark-signature"] = options.badSignature ? flipLastHexDigit(signature) : signature;
  }
  return { headers, rawBody };
}

export async function sendWebhookRequest(url: string, request: WebhookRequest): Promise<WebhookResponse> {
  const response = await fetch(url, { method: "POST", headers: request.headers, body: request.rawBody });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : text;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

export function postWebhook(
  url: string,
  event: object,
  options: WebhookOptions = {},
): Promise<WebhookResponse> {
  return sendWebhookRequest(url, buildWebhookRequest(event, options));
}

const flipLastHexDigit = (signature: string): string =>
  signature.slice(0, -1) + (signature.endsWith("0") ? "1" : "0");
