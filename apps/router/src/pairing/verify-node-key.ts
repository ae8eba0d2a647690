import { createPublicKey, verify } from "node:crypto";
import { nodeAuthPayload } from "@phonework/protocol";

// Checks a node's Ed25519 signature over the router's nonce. Any malformed key or signature is a
// plain "no": a hostile frame must not be able to throw its way past the check.

export function signatureValid(nonce: string, nodeId: string, publicKey: string, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ed25519") return false;
    const payload = Buffer.from(nodeAuthPayload(nonce, nodeId, publicKey));
    return verify(null, payload, key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}
