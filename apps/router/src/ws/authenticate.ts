import { createHash, timingSafeEqual } from "node:crypto";

// Constant-time bearer check. Both sides are hashed first so the comparison
// takes the same time whatever the length of the presented token.

/** The auth scheme is case-insensitive and may be followed by several spaces (RFC 7235 §2.1). */
const BEARER = /^Bearer +(.+)$/i;

export function bearerMatches(header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const match = BEARER.exec(header);
  if (!match?.[1]) return false;
  const presented = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(secret).digest();
  return timingSafeEqual(presented, expected);
}
