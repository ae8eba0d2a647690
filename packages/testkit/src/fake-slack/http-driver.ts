import { createHmac } from "node:crypto";
import type { SignedRequest, SignOptions } from "./types.ts";

// HTTP mode, Slack's side: requests signed with the v0 scheme (HMAC-SHA256 of
// "v0:<timestamp>:<raw body>" under the Signing Secret) posted to the app's URL. A test can forge
// (another secret, an old timestamp, no headers) and replay a request exactly as it was.

export function signSlackRequest(
  signingSecret: string,
  body: string,
  contentType: string,
  options: SignOptions = {},
): SignedRequest {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const secret = options.secret ?? signingSecret;
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return {
    body,
    headers: {
      "content-type": contentType,
      ...(options.unsigned ? {} : { "x-slack-request-timestamp": timestamp, "x-slack-signature": signature }),
    },
  };
}

export const jsonRequest = (secret: string, body: unknown, options?: SignOptions) =>
  signSlackRequest(secret, JSON.stringify(body), "application/json", options);

export const formRequest = (secret: string, fields: Record<string, string>, options?: SignOptions) =>
  signSlackRequest(
    secret,
    new URLSearchParams(fields).toString(),
    "application/x-www-form-urlencoded",
    options,
  );

/** Posts a request (signed or forged) to the app; resolves with Slack's view of the answer. */
export async function postSigned(
  url: string,
  request: SignedRequest,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: "POST", headers: request.headers, body: request.body });
  return { status: response.status, body: await response.text() };
}
