import { createHash } from "node:crypto";
import type { TLSSocket } from "node:tls";

// ROUTER_CERT_SHA256 pins the router's certificate by the SHA-256 of its DER bytes.

/** The peer certificate's SHA-256 (lowercase hex), or "none" when the peer showed none. */
export function peerFingerprint(tlsSocket: TLSSocket): string {
  const raw = tlsSocket.getPeerCertificate?.()?.raw;
  return raw ? createHash("sha256").update(raw).digest("hex") : "none";
}
