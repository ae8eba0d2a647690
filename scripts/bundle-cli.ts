import { rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { repoRoot, runtimeDependencies } from "./workspace-manifests.ts";

// The `phonework` executable as plain JavaScript in apps/cli/dist/. The workspace's
// TypeScript is bundled (nothing is compiled at run time); third-party packages stay imports.
// Each subcommand's app is its own chunk, loaded only when that subcommand runs.

export const outDir = join(repoRoot, "apps", "cli", "dist");

export async function buildCli(): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: { phonework: join(repoRoot, "apps", "cli", "src", "main.ts") },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Subpath imports (`pino/file`, `@modelcontextprotocol/sdk/server/mcp.js`) are externals too.
    external: Object.keys(runtimeDependencies()).flatMap((name) => [name, `${name}/*`]),
    banner: { js: "#!/usr/bin/env node" },
    // Flat: every file is one level below the package root, where `../package.json` is the manifest.
    chunkNames: "[name]-[hash]",
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
}
