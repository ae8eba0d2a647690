import { chmodSync, cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { bundledPackageDirs } from "./bundle-cli.ts";
import { repoRoot } from "./workspace-manifests.ts";

// The web console's page (apps/router/web/src): preact and xterm.js bundled by esbuild into
// console.js, console.css and login.js, served by the router from /console/assets/ (and
// service-worker.js, served from /console/: see console/pwa/). Nothing is
// loaded from elsewhere (the CSP allows only the router itself).

export const consoleSourceDir = join(repoRoot, "apps", "router", "web", "src");
/** Where the router looks in the repo (console-assets.ts); the bundled CLI gets its own copy. */
export const consoleOutDir = join(repoRoot, "apps", "router", "dist", "console");

/**
 * Builds into `outDir`, replacing what was there in one rename (a running router never sees half).
 * Returns the directory and the bundled packages' directories (for their licences).
 */
export async function buildConsole(outDir = consoleOutDir): Promise<{ dir: string; packages: string[] }> {
  mkdirSync(dirname(outDir), { recursive: true });
  const staging = mkdtempSync(join(dirname(outDir), ".console-"));
  try {
    const { metafile } = await build({
      entryPoints: {
        console: join(consoleSourceDir, "main.tsx"),
        login: join(consoleSourceDir, "login.ts"),
        // served from /console/ by the router (console/pwa/), so that its scope is the whole console
        "service-worker": join(consoleSourceDir, "service-worker.ts"),
      },
      outdir: staging,
      bundle: true,
      format: "iife",
      target: ["chrome100", "firefox100", "safari15"],
      jsx: "automatic",
      jsxImportSource: "preact",
      minify: true,
      sourcemap: false,
      metafile: true,
      legalComments: "none", // the licences are in THIRD_PARTY_LICENSES.md, as the CLI's are
      logLevel: "warning",
    });
    chmodSync(staging, 0o755); // mkdtemp makes it owner-only; these are public files
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
    return { dir: outDir, packages: bundledPackageDirs(Object.keys(metafile.inputs)) };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Puts a copy of a built page at `outDir`, in one rename as buildConsole does (no second build). */
export function copyConsole(from: string, outDir = consoleOutDir): void {
  mkdirSync(dirname(outDir), { recursive: true });
  const staging = mkdtempSync(join(dirname(outDir), ".console-"));
  try {
    cpSync(from, staging, { recursive: true });
    chmodSync(staging, 0o755);
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}
