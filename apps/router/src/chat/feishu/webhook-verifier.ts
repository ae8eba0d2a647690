import { createDecipheriv, createHash, timingSafeEqual } from "node:crypto";

// Feishu's HTTP event delivery, checked by hand: the signature over the RAW body (the SDK
// re-serializes JSON before hashing), decryption with the encrypt key, and the verification
// token (which the SDK never checks on events).

export interface WebhookSecrets {
  encryptKey: string | undefined;
  verificationToken: string | undefined;
}

export type WebhookResult =
  | { kind: "challenge"; challenge: string }
  | { kind: "event"; body: Record<string, unknown> }
  | { kind: "rejected"; status: number; reason: string };

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function decrypt(encrypted: string, encryptKey: string): string {
  const buffer = Buffer.from(encrypted, "base64");
  const key = createHash("sha256").update(encryptKey).digest();
  const decipher = createDecipheriv("aes-256-cbc", key, buffer.subarray(0, 16));
  return Buffer.concat([decipher.update(buffer.subarray(16)), decipher.final()]).toString("utf8");
}

function signatureValid(
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
  encryptKey: string,
): boolean {
  const timestamp = header(headers, "x-lark-request-timestamp") ?? "";
  const nonce = header(headers, "x-lark-request-nonce") ?? "";
  const presented = header(headers, "x-lark-signature") ?? "";
  const expected = createHash("sha256")
    .update(timestamp + nonce + encryptKey + rawBody)
    .digest("hex");
  return (
    presented.length === expected.length && timingSafeEqual(Buffer.from(presented), Buffer.from(expected))
  );
}

export function verifyWebhook(
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
  secrets: WebhookSecrets,
): WebhookResult {
  let outer: Record<string, unknown>;
  try {
    outer = JSON.parse(rawBody) as Record<string, unknown>;
  } catch {
    return { kind: "rejected", status: 400, reason: "body is not JSON" };
  }
  let body = outer;
  if (typeof outer.encrypt === "string") {
    if (!secrets.encryptKey)
      return { kind: "rejected", status: 400, reason: "encrypted event but FEISHU_ENCRYPT_KEY is not set" };
    try {
      body = JSON.parse(decrypt(outer.encrypt, secrets.encryptKey)) as Record<string, unknown>;
    } catch {
      return {
        kind: "rejected",
        status: 400,
        reason: "cannot decrypt the event (wrong FEISHU_ENCRYPT_KEY?)",
      };
    }
  }
  const eventHeader = (body.header ?? {}) as Record<string, unknown>;
  const token = (eventHeader.token ?? body.token) as string | undefined;
  if (secrets.verificationToken && token !== secrets.verificationToken) {
    return { kind: "rejected", status: 401, reason: "verification token mismatch" };
  }
  if (body.type === "url_verification" && typeof body.challenge === "string") {
    return { kind: "challenge", challenge: body.challenge };
  }
  // Feishu signs event deliveries when an encrypt key is configured.
  if (secrets.encryptKey && !signatureValid(headers, rawBody, secrets.encryptKey)) {
    return { kind: "rejected", status: 401, reason: "bad signature" };
  }
  return { kind: "event", body };
}
