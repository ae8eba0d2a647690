import { readFileSync } from "node:fs";
import { StartupError } from "@phonework/runtime";
import type { RouterTls } from "./router-link.ts";

/** The TLS trust the config asks for: ROUTER_CA_FILE read once, ROUTER_CERT_SHA256 as a pin. */
export function routerTlsFromConfig(config: {
  ROUTER_CA_FILE?: string | undefined;
  ROUTER_CERT_SHA256?: string | undefined;
}): RouterTls {
  let ca: Buffer | undefined;
  if (config.ROUTER_CA_FILE) {
    try {
      ca = readFileSync(config.ROUTER_CA_FILE);
    } catch (error) {
      throw new StartupError(
        `ROUTER_CA_FILE ${config.ROUTER_CA_FILE} cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  return {
    ...(ca ? { ca } : {}),
    ...(config.ROUTER_CERT_SHA256 ? { pinSha256: config.ROUTER_CERT_SHA256 } : {}),
  };
}
