import { createPublicKey } from "node:crypto";
import type { NodeKey } from "./ed25519-verify.ts";

// Each node's public key parsed once: the SPKI parse cost as much as the signature check itself
// (~116 µs of a ~240 µs handshake). Keyed by the key's own text, so an entry can never be stale:
// a re-paired node brings a different key (a miss), and whether a key may still be used (revoked,
// replaced) is decided by the node table, not here. Bounded: past the limit the oldest entry goes.

const MAX_KEYS = 20_000;

export class ParsedKeys {
  private readonly keys = new Map<string, NodeKey | null>();

  constructor(private readonly max = MAX_KEYS) {}

  /** The Ed25519 key for this base64 SPKI text; null if it is not one (remembered too). */
  ed25519(publicKey: string): NodeKey | null {
    const cached = this.keys.get(publicKey);
    if (cached !== undefined) return cached;
    let key: NodeKey | null = null;
    try {
      const parsed = createPublicKey({ key: Buffer.from(publicKey, "base64"), format: "der", type: "spki" });
      const x = parsed.asymmetricKeyType === "ed25519" ? parsed.export({ format: "jwk" }).x : undefined;
      // Copied out of Buffer's shared pool: a cached slice of it would keep its whole slab
      // (64 KiB on Node 24) alive, for each of up to MAX_KEYS keys strangers can bring: ~160 MB.
      key = x ? { object: parsed, raw: ownBytes(Buffer.from(x, "base64url")) } : null;
    } catch {
      key = null;
    }
    if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(publicKey, key);
    return key;
  }

  get size(): number {
    return this.keys.size;
  }
}

/** The bytes in a buffer of their own (Buffer.alloc never takes from the pool). */
function ownBytes(bytes: Buffer): Buffer {
  const own = Buffer.alloc(bytes.length);
  bytes.copy(own);
  return own;
}
