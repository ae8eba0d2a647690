import { readFileSync } from "node:fs";
import { StartupError } from "@phonework/runtime";
import type { RouterConfig } from "../config/router-config.ts";

// The router serving TLS itself (TLS_CERT_FILE + TLS_KEY_FILE), for a VPS without a proxy in front.
// The config schema already refuses one without the other.

export function readTlsFiles(config: RouterConfig): { cert: Buffer; key: Buffer } | undefined {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = config;
  if (!certFile || !keyFile) return undefined;
  const read = (key: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new StartupError(
        `${key} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  };
  return { cert: read("TLS_CERT_FILE", certFile), key: read("TLS_KEY_FILE", keyFile) };
}
