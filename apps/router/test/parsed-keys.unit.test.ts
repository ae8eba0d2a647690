import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ParsedKeys } from "../src/pairing/parsed-keys.ts";

// Each node key parsed once; garbage is a plain null (also cached), and the cache is bounded.

const spki = (type: "ed25519" | "x25519") =>
  generateKeyPairSync(type as "ed25519")
    .publicKey.export({ format: "der", type: "spki" })
    .toString("base64");

describe("ParsedKeys", () => {
  it("parses a key once and hands the same object back; a re-paired node's new key is a new entry", () => {
    const keys = new ParsedKeys();
    const first = spki("ed25519");
    const parsed = keys.ed25519(first);
    expect(parsed?.object.asymmetricKeyType).toBe("ed25519");
    expect(parsed?.raw.length).toBe(32);
    expect(keys.ed25519(first)).toBe(parsed);
    const repaired = spki("ed25519");
    expect(keys.ed25519(repaired)).not.toBe(parsed);
    expect(keys.size).toBe(2);
  });

  it("a forged or non-Ed25519 key is null, never a throw", () => {
    const keys = new ParsedKeys();
    expect(keys.ed25519("not base64 at all ✗")).toBeNull();
    expect(keys.ed25519(Buffer.alloc(5000, 7).toString("base64"))).toBeNull();
    expect(keys.ed25519(spki("x25519"))).toBeNull();
  });

  it("holds at most its bound: a stranger cycling keys cannot grow it", () => {
    const keys = new ParsedKeys(3);
    for (let i = 0; i < 50; i++) keys.ed25519(Buffer.from(`junk-${i}`).toString("base64"));
    expect(keys.size).toBe(3);
  });

  it("a cached key's raw bytes own their memory, not a slice of Buffer's shared pool", () => {
    // Keys are cached by the thousand from strangers' handshakes (the join-code path checks the
    // signature first): a 32-byte slice of the shared pool would keep its whole slab (64 KiB on
    // Node 24) alive.
    const key = new ParsedKeys().ed25519(spki("ed25519"));
    expect(key?.raw.length).toBe(32);
    expect(key?.raw.buffer.byteLength).toBe(32);
  });
});
