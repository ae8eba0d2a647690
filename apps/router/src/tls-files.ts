import { readFileSync } from "node:fs";
import { ConfigError, StartupError } from "@phonework/runtime";
import type { RouterConfig } from "./config.ts";

// The router serving TLS itself (TLS_CERT_FILE + TLS_KEY_FILE), for a VPS without a proxy in front.

export function readTlsFiles(config: RouterConfig): { cert: Buffer; key: Buffer } | undefined {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = config;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new ConfigError(
      `invalid configuration:\n  ${certFile ? "TLS_KEY_FILE" : "TLS_CERT_FILE"}: is required with ${certFile ? "TLS_CERT_FILE" : "TLS_KEY_FILE"}`,
    );
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

/** This package's version, for GET /health. */
export function routerVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: string;
  };
  return manifest.version ?? "unknown";
}
