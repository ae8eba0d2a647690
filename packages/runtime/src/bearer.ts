import { createHash, timingSafeEqual } from "node:crypto";

// Constant-time comparison of a presented value with a secret (bearer tokens, webhook tokens,
// signatures). Both sides are hashed first, so the time taken says nothing about the secret's
// length or its first matching bytes. Anything that is not a string never matches.

const digest = (value: string) => createHash("sha256").update(value).digest();

export function sameSecret(presented: unknown, secret: string): boolean {
  if (typeof presented !== "string") return false;
  return timingSafeEqual(digest(presented), digest(secret));
}

/** The auth scheme is case-insensitive and may be followed by several spaces (RFC 7235 §2.1). */
const BEARER = /^Bearer +(.+)$/i;

export function bearerMatches(header: string | undefined, secret: string): boolean {
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  return token !== undefined && sameSecret(token, secret);
}
