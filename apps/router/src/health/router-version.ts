import { readFileSync } from "node:fs";

/**
 * The version in the package manifest at `manifest`, for GET /health. The caller names the file
 * relative to itself: bundled, that is the shipped package's manifest, not the source tree's.
 */
export function routerVersion(manifest: URL): string {
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
  return parsed.version ?? "unknown";
}
