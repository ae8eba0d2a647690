import { readFileSync } from "node:fs";

/** This package's version, for GET /health. */
export function routerVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: string;
  };
  return manifest.version ?? "unknown";
}
