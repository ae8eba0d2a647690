import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Check, fail, ok, warn } from "./check.ts";

// The certificate a router serves itself (TLS_CERT_FILE + TLS_KEY_FILE): readable, a pair, and
// not about to expire. Hosts check the rest (trust) from their side.

const TITLE = "TLS certificate";
const EXPIRY_WARNING_MS = 14 * 86_400_000;

export function checkRouterCertificate(certFile: string, keyFile: string, now: number): Check {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(certFile));
  } catch (error) {
    return fail(TITLE, `TLS_CERT_FILE ${certFile} is not a readable PEM certificate (${reason(error)})`);
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(readFileSync(keyFile))))
      return fail(
        TITLE,
        `TLS_KEY_FILE ${keyFile} is not the key of ${certFile}`,
        "use the key the certificate was issued for",
      );
  } catch (error) {
    return fail(TITLE, `TLS_KEY_FILE ${keyFile} is not a readable PEM private key (${reason(error)})`);
  }
  const validTo = new Date(cert.validTo);
  const detail = `${certFile} (${cert.subject.replaceAll("\n", ", ")}), valid until ${validTo.toISOString().slice(0, 10)}`;
  const left = validTo.getTime() - now;
  if (left <= 0) return fail(TITLE, `${detail}: expired`, "renew the certificate");
  if (left < EXPIRY_WARNING_MS) return warn(TITLE, `${detail}: expires soon`, "renew the certificate");
  return ok(TITLE, detail);
}

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;
