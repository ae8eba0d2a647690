import { readFileSync } from "node:fs";

/**
 * PhoneWork's version: the `version` of the package.json one directory up. In the installed package
 * that is the published manifest (the bundle lives in dist/); in the repo, apps/cli/package.json.
 */
export function phoneworkVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: string;
  };
  return manifest.version ?? "unknown";
}
