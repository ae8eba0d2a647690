import { ed25519Backend, verifyEd25519 } from "@phonework/router";
import { describe, expect, it } from "vitest";
import { checkNodeSignatures } from "../src/doctor/checks/node-signatures.ts";

// doctor's "node signatures": which library checks hosts' handshakes, proved on a fresh signature.

describe("doctor: node signatures", () => {
  it("sodium-native installed: ✅ libsodium, after it accepted a fresh signature and refused a changed message", () => {
    expect(checkNodeSignatures({ ed25519Backend, verifyEd25519 })).toEqual({
      status: "ok",
      title: "node signatures",
      detail: "hosts' Ed25519 handshakes are checked by libsodium (sodium-native)",
    });
  });

  it("the addon missing, or one that answers wrongly: ⚠️ OpenSSL instead, with the reason and the fix", () => {
    const missing = checkNodeSignatures({
      ed25519Backend: () => ({ backend: "openssl", reason: "Cannot find module 'sodium-native'" }),
      verifyEd25519,
    });
    expect(missing.status).toBe("warn");
    expect(missing.detail).toBe(
      "sodium-native did not load: Cannot find module 'sodium-native'; hosts' handshakes are checked by Node's OpenSSL instead, at about twice the CPU each",
    );
    expect(missing.fix).toContain("reinstall");
    const yesToAll = checkNodeSignatures({ ed25519Backend, verifyEd25519: () => true });
    expect(yesToAll.detail).toMatch(/^libsodium accepted a signature of another message;/);
  });
});
