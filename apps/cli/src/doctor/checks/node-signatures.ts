import { generateKeyPairSync, sign } from "node:crypto";
import type { Ed25519Backend, NodeKey } from "@phonework/router";
import { type Check, ok, warn } from "./check.ts";

// A router checks every host's Ed25519 handshake with libsodium (the optional sodium-native addon)
// when it loads, with Node's OpenSSL otherwise, at about twice the CPU per handshake: what decides
// how fast a router takes all its hosts back after a restart. Here one fresh signature is checked
// the way the router would, so an install whose addon failed says so.

const TITLE = "node signatures";

export interface SignatureChecker {
  ed25519Backend(): { backend: Ed25519Backend; reason?: string };
  verifyEd25519(message: Buffer, signature: Buffer, key: NodeKey, backend?: Ed25519Backend): boolean;
}

export function checkNodeSignatures(checker: SignatureChecker): Check {
  const { backend, reason } = checker.ed25519Backend();
  if (backend !== "libsodium") return onOpenSsl(`sodium-native did not load: ${reason ?? "unknown reason"}`);
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const key = {
    object: publicKey,
    raw: Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url"),
  };
  const message = Buffer.from("phonework doctor");
  const signature = sign(null, message, privateKey);
  const tampered = Buffer.from("phonework doctoR");
  if (!checker.verifyEd25519(message, signature, key, "libsodium"))
    return onOpenSsl("libsodium refused a valid test signature");
  if (checker.verifyEd25519(tampered, signature, key, "libsodium"))
    return onOpenSsl("libsodium accepted a signature of another message");
  return ok(TITLE, "hosts' Ed25519 handshakes are checked by libsodium (sodium-native)");
}

function onOpenSsl(reason: string): Check {
  return warn(
    TITLE,
    `${reason}; hosts' handshakes are checked by Node's OpenSSL instead, at about twice the CPU each`,
    "reinstall the PhoneWork package (npm install -g ./phonework-<version>.tgz) so that its optional sodium-native installs beside it",
  );
}
