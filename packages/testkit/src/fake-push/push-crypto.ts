import { createDecipheriv, createPublicKey, hkdfSync, verify } from "node:crypto";
import type { PushSubscriber } from "./push-subscriber.ts";

// What a push service and a browser do with a push request: check the VAPID JWT (RFC 8292) and
// decrypt the aes128gcm body (RFC 8291 keys, RFC 8188 framing). Each throws a clear error.

export interface VapidClaims {
  aud: string;
  exp: number;
  sub?: string;
}

/** The P-256 public key sent as `k=` (65 bytes, uncompressed, base64url) as a KeyObject. */
function publicKeyOf(raw: Buffer) {
  if (raw.length !== 65 || raw[0] !== 4) throw new Error("k= is not an uncompressed P-256 point");
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: raw.subarray(1, 33).toString("base64url"),
    y: raw.subarray(33).toString("base64url"),
  };
  return createPublicKey({ key: jwk, format: "jwk" });
}

/** Checks `Authorization: vapid t=<jwt>, k=<key>`: ES256 under k, for `audience`, not expired. */
export function checkVapid(
  header: string | undefined,
  audience: string,
  nowS: number,
): { claims: VapidClaims; k: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(header ?? "");
  if (!match?.[1] || !match[2]) throw new Error("no vapid authorization");
  const [head, body, signature] = match[1].split(".") as [string, string, string];
  const header_ = JSON.parse(Buffer.from(head, "base64url").toString()) as { alg?: string };
  if (header_.alg !== "ES256") throw new Error(`JWT alg ${header_.alg}`);
  const signed = verify(
    "sha256",
    Buffer.from(`${head}.${body}`),
    { key: publicKeyOf(Buffer.from(match[2], "base64url")), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  if (!signed) throw new Error("JWT signature does not verify under k");
  const claims = JSON.parse(Buffer.from(body, "base64url").toString()) as VapidClaims;
  if (claims.aud !== audience) throw new Error(`JWT aud ${claims.aud}, not ${audience}`);
  if (!(claims.exp > nowS && claims.exp <= nowS + 24 * 3600))
    throw new Error("JWT expired or too long-lived");
  return { claims, k: match[2] };
}

/** Decrypts an aes128gcm push body (one record) with the subscriber's private key and auth secret. */
export function decryptPush(body: Buffer, subscriber: PushSubscriber): string {
  if (body.length < 16 + 4 + 1 + 65 + 17) throw new Error("body too short for aes128gcm");
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  if (idLength !== 65) throw new Error("keyid is not the sender's P-256 key");
  const senderKey = body.subarray(21, 21 + idLength);
  const sealed = body.subarray(21 + idLength);
  const secret = subscriber.ecdh.computeSecret(senderKey);
  const info = Buffer.concat([Buffer.from("WebPush: info\0"), subscriber.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync("sha256", secret, subscriber.auth, info, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const padded = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the last record's delimiter is not 0x02");
  return padded.subarray(0, end).toString("utf8");
}
