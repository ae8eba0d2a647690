import { isIP } from "node:net";
import { connect, type PeerCertificate, type TLSSocket } from "node:tls";
import { peerFingerprint, type RouterTls, routerTlsFromConfig } from "@phonework/host";
import { isLoopbackHost, StartupError } from "@phonework/runtime";
import { type Check, fail, ok, warn } from "./check.ts";
import { hostPort, type RouterAddress } from "./router-address.ts";

// The router's certificate, trusted the way the host trusts it: the system's CAs, ROUTER_CA_FILE,
// or a fingerprint pinned by ROUTER_CERT_SHA256 (then the fingerprint alone is the trust).

const TITLE = "router TLS";
/** A certificate this close to its end gets a warning: renewals that failed show up in time. */
const EXPIRY_WARNING_MS = 14 * 86_400_000;
const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/;
const TRUST_FIX =
  "if the router uses a self-signed certificate, set ROUTER_CA_FILE to its CA, or pin it with ROUTER_CERT_SHA256";

export interface RouterTlsSettings {
  ROUTER_CA_FILE?: string | undefined;
  ROUTER_CERT_SHA256?: string | undefined;
}

/** What the host would trust (the host's own reading of the config), or the ❌ when it cannot. */
export function readRouterTls(config: RouterTlsSettings): { tls: RouterTls } | { problem: Check } {
  try {
    return { tls: routerTlsFromConfig(config) };
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    return { problem: fail(TITLE, error.message, "point ROUTER_CA_FILE at the CA's PEM file") };
  }
}

/** ws:// needs no TLS; the config already refused plaintext to another machine unless allowed. */
export function plaintextCheck(address: RouterAddress): Check {
  if (isLoopbackHost(address.host)) return ok(TITLE, "not used: ws:// to this machine");
  return warn(
    TITLE,
    `not used: plaintext ws:// to ${address.host} (ALLOW_INSECURE_TRANSPORT): the handshake and every message travel unencrypted`,
    "serve wss:// (TLS_CERT_FILE and TLS_KEY_FILE on the router, or a TLS proxy in front) and use a wss:// ROUTER_URL",
  );
}

export function checkRouterTls(
  address: RouterAddress,
  tls: RouterTls,
  options: { caFile?: string | undefined; timeoutMs: number; now: number },
): Promise<Check> {
  const where = hostPort(address);
  return new Promise((resolve) => {
    let socket: TLSSocket;
    const done = (check: Check) => {
      socket?.destroy();
      resolve(check);
    };
    try {
      socket = connect({
        host: address.host,
        port: address.port,
        ...(isIP(address.host) ? {} : { servername: address.host }),
        ...(tls.ca ? { ca: tls.ca } : {}),
        // Pinned: the fingerprint is the trust, as in the host.
        rejectUnauthorized: !tls.pinSha256,
      });
    } catch (error) {
      resolve(fail(TITLE, `cannot use the TLS settings (${(error as Error).message})`, TRUST_FIX));
      return;
    }
    socket.setTimeout(options.timeoutMs, () =>
      done(
        fail(
          TITLE,
          `no TLS handshake with ${where} in ${options.timeoutMs / 1000} s`,
          "check ROUTER_URL's port",
        ),
      ),
    );
    socket.once("secureConnect", () =>
      done(judge(socket.getPeerCertificate(), peerFingerprint(socket), tls, options)),
    );
    socket.once("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      if (CERT_ERRORS.test(code))
        done(fail(TITLE, `the router's certificate was refused (${code}: ${error.message})`, TRUST_FIX));
      else
        done(
          fail(
            TITLE,
            `no TLS handshake with ${where} (${code || error.message})`,
            "check that the router serves TLS on this port (TLS_CERT_FILE, or a proxy), or use ws:// for a router on this machine",
          ),
        );
    });
  });
}

function judge(
  cert: PeerCertificate,
  fingerprint: string,
  tls: RouterTls,
  options: { caFile?: string | undefined; now: number },
): Check {
  if (tls.pinSha256) {
    if (fingerprint !== tls.pinSha256)
      return fail(
        TITLE,
        `the certificate's SHA-256 is ${fingerprint}, not ROUTER_CERT_SHA256: the host refuses to talk to it`,
        "pin the router's current certificate (openssl x509 -in cert.pem -noout -fingerprint -sha256), or fix ROUTER_URL",
      );
  }
  const validTo = new Date(cert.valid_to);
  const left = validTo.getTime() - options.now;
  const trust = tls.pinSha256
    ? "pinned by ROUTER_CERT_SHA256"
    : options.caFile
      ? `signed by ROUTER_CA_FILE ${options.caFile}`
      : "trusted by the system's CAs";
  const detail = `certificate for ${cert.subject?.CN ?? "?"} ${trust}, valid until ${validTo.toISOString().slice(0, 10)}`;
  // Only a pinned certificate gets here expired (the host accepts it: the pin is the trust).
  if (left <= 0) return warn(TITLE, `${detail}: expired`, "renew the router's certificate");
  if (left < EXPIRY_WARNING_MS)
    return warn(TITLE, `${detail}: expires soon`, "renew the router's certificate");
  return ok(TITLE, detail);
}
