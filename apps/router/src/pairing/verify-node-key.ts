import { nodeAuthPayload } from "@phonework/protocol";
import { verifyEd25519 } from "./ed25519-verify.ts";
import { ParsedKeys } from "./parsed-keys.ts";

// Checks a node's Ed25519 signature over the router's nonce (by libsodium or OpenSSL: ed25519-verify.ts).
// Any malformed key or signature is a plain "no": a hostile frame must not be able to throw its way
// past the check.

/** Parsed keys shared by every check: a pure cache (the same text always parses the same), not state. */
const defaultKeys = new ParsedKeys();

export function signatureValid(
  nonce: string,
  nodeId: string,
  publicKey: string,
  signature: string,
  keys: ParsedKeys = defaultKeys,
): boolean {
  try {
    const key = keys.ed25519(publicKey);
    if (!key) return false;
    const payload = Buffer.from(nodeAuthPayload(nonce, nodeId, publicKey));
    return verifyEd25519(payload, Buffer.from(signature, "base64"), key);
  } catch {
    return false;
  }
}
