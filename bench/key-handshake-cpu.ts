import { randomBytes } from "node:crypto";
import { ParsedKeys } from "../apps/router/src/pairing/parsed-keys.ts";
import { signatureValid } from "../apps/router/src/pairing/verify-node-key.ts";
import { signedAuth, simKey } from "./sim-keys.ts";
import { round } from "./stats.ts";

// The router's CPU for one key handshake's proof: the signature over its nonce checked against the
// node's key (pairing/verify-node-key.ts, as admission runs it). Measured cold — the first
// handshake of each key since the router started, which parses it (a storm after a restart is all
// first handshakes) — and warm, the key already parsed (every later reconnect).

const KEYS = 2_000;

export function measureKeyHandshakeCpu(): { coldMs: number; warmMs: number } {
  const proofs = Array.from({ length: KEYS }, (_, i) => {
    const nodeId = `cpu-${i}`;
    const nonce = randomBytes(32).toString("base64url");
    return { nodeId, nonce, auth: signedAuth(simKey(nodeId), nonce, nodeId) };
  });
  const keys = new ParsedKeys();
  const pass = () => {
    const started = process.cpuUsage();
    for (const { nodeId, nonce, auth } of proofs)
      if (!signatureValid(nonce, nodeId, auth.public_key, auth.signature, keys))
        throw new Error(`the proof of ${nodeId} does not verify`);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000 / KEYS;
  };
  const coldMs = pass();
  const warmMs = Math.min(pass(), pass());
  return { coldMs: round(coldMs, 3), warmMs: round(warmMs, 3) };
}
