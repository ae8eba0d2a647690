import { createPublicKey, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ed25519Backend, verifyEd25519 } from "../src/pairing/ed25519-verify.ts";
import { ParsedKeys } from "../src/pairing/parsed-keys.ts";

// The handshake's signature check by libsodium (sodium-native) and by OpenSSL: the same answers for
// honest and forged proofs, and libsodium really is the one in use where it is installed.

const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const spki = publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const key = new ParsedKeys().ed25519(spki);
  if (!key) throw new Error("an Ed25519 key did not parse");
  return { key, privateKey };
}

describe("verifyEd25519", () => {
  it("uses libsodium where sodium-native is installed (this workspace)", () => {
    expect(ed25519Backend()).toEqual({ backend: "libsodium" });
  });

  it("libsodium and OpenSSL agree: honest proofs pass, a changed message, signature or key fails", () => {
    const other = keyPair();
    for (let i = 0; i < 20; i++) {
      const { key, privateKey } = keyPair();
      const message = randomBytes(16 + i);
      const signature = sign(null, message, privateKey);
      const flipped = Buffer.from(signature);
      flipped[i % 64] = (flipped[i % 64] ?? 0) ^ 1;
      const changed = Buffer.concat([message, Buffer.from([0])]);
      for (const backend of ["libsodium", "openssl"] as const) {
        expect(verifyEd25519(message, signature, key, backend)).toBe(true);
        expect(verifyEd25519(changed, signature, key, backend)).toBe(false);
        expect(verifyEd25519(message, flipped, key, backend)).toBe(false);
        expect(verifyEd25519(message, signature, other.key, backend)).toBe(false);
      }
    }
  });

  it("a signature of the wrong length, empty or oversized, is a plain no on both, never a throw", () => {
    const { key, privateKey } = keyPair();
    const signature = sign(null, Buffer.from("nonce"), privateKey);
    for (const bad of [
      Buffer.alloc(0),
      signature.subarray(0, 63),
      Buffer.concat([signature, Buffer.alloc(1)]),
    ])
      for (const backend of ["libsodium", "openssl"] as const)
        expect(verifyEd25519(Buffer.from("nonce"), bad, key, backend)).toBe(false);
  });

  it("libsodium refuses a small-order key's trivial forgery (the identity point, S = 0) for any message", () => {
    const identity = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]);
    const object = createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, identity]),
      format: "der",
      type: "spki",
    });
    const key = { object, raw: identity };
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    expect(verifyEd25519(Buffer.from("any nonce at all"), forged, key, "libsodium")).toBe(false);
  });
});
