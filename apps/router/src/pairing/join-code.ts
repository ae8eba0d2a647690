import { createHash, randomInt } from "node:crypto";
import { parseJoinCode } from "@phonework/protocol";

// One-time join codes: `home-pc:K7QX-M2PD-R9TF-4HNB`. 16 characters of Crockford's base32 (no
// I, L, O, U: nothing to misread when typing it from a phone) carry 80 random bits; with a
// 10-minute life and one use, guessing is hopeless. Only the hash is stored.

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function mintJoinCode(nodeId: string): { code: string; secretHash: string } {
  const chars = Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  const secret = chars.match(/.{4}/g)?.join("-") ?? chars;
  return { code: `${nodeId}:${secret}`, secretHash: hashJoinSecret(secret) };
}

export function hashJoinSecret(secret: string): string {
  return createHash("sha256").update(`phonework-join:${secret}`).digest("hex");
}

/** The node id and the hash to look up, or undefined for a malformed code. */
export function readJoinCode(code: string): { nodeId: string; secretHash: string } | undefined {
  const parsed = parseJoinCode(code);
  return parsed && { nodeId: parsed.nodeId, secretHash: hashJoinSecret(parsed.secret) };
}
