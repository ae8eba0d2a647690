import { type KeyObject, verify } from "node:crypto";
import { createRequire } from "node:module";

// The Ed25519 check of a node's handshake, by libsodium when it loads (sodium-native, an optional
// native addon with a prebuilt binary per platform) and by Node's OpenSSL otherwise. On this
// project's 2-core bench machine libsodium's verify costs ~90 µs and OpenSSL's ~160 µs: in a
// reconnect storm every host's handshake is one of these, on the router's one thread. Both follow
// RFC 8032; libsodium is the stricter (it also refuses small-order keys and non-canonical points),
// so a signature it accepts, OpenSSL accepts too. Loaded on the first handshake, not at start, so
// a router that never sees a node does not map the addon.

export interface NodeKey {
  /** For OpenSSL. */
  object: KeyObject;
  /** The 32 bytes of the key, for libsodium. */
  raw: Buffer;
}

interface Sodium {
  crypto_sign_verify_detached(signature: Buffer, message: Buffer, publicKey: Buffer): boolean;
}

export type Ed25519Backend = "libsodium" | "openssl";

let sodium: Sodium | null | undefined;
let loadError: string | undefined;

function loadSodium(): Sodium | null {
  if (sodium !== undefined) return sodium;
  try {
    sodium = createRequire(import.meta.url)("sodium-native") as Sodium;
  } catch (error) {
    sodium = null;
    loadError = ((error as Error)?.message ?? String(error)).split("\n")[0];
  }
  return sodium;
}

/** Which library checks signatures in this process, and why not libsodium if it is OpenSSL. */
export function ed25519Backend(): { backend: Ed25519Backend; reason?: string } {
  return loadSodium() ? { backend: "libsodium" } : { backend: "openssl", reason: loadError };
}

/**
 * Whether `signature` is the key's Ed25519 signature of `message` (a malformed signature is a plain
 * no). `backend`: by default libsodium where it loads; "libsodium" where it does not is OpenSSL too.
 */
export function verifyEd25519(
  message: Buffer,
  signature: Buffer,
  key: NodeKey,
  backend?: Ed25519Backend,
): boolean {
  if (signature.length !== 64) return false;
  const lib = backend === "openssl" ? null : loadSodium();
  if (lib) return lib.crypto_sign_verify_detached(signature, message, key.raw);
  return verify(null, message, key.object, signature);
}
