import { createECDH, type ECDH, randomBytes } from "node:crypto";

// A browser's side of a Web Push subscription: the P-256 key pair (p256dh) and the 16-byte auth
// secret it would hand the server, with the private half kept to decrypt what arrives.

export interface PushSubscriber {
  /** What the page gives the server (PushSubscription.toJSON()'s keys), base64url. */
  keys: { p256dh: string; auth: string };
  ecdh: ECDH;
  auth: Buffer;
}

export function newPushSubscriber(): PushSubscriber {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
    ecdh,
    auth,
  };
}
