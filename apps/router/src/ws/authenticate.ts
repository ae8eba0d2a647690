import { createHash, timingSafeEqual } from "node:crypto";

// Constant-time bearer check. Both sides are hashed first so the comparison
// takes the same time whatever the length of the presented token.
export function bearerMatches(header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const match = /^Bearer (.+)$/.exec(header);
  if (!match?.[1]) return false;
  const presented = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(secret).digest();
  return timingSafeEqual(presented, expected);
}
