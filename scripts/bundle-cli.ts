import { readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { asciiFile } from "./ascii-output.ts";
import { OPTIONAL_PACKAGE_DEPENDENCIES, PACKAGE_DEPENDENCIES, repoRoot } from "./workspace-manifests.ts";

// The `phonework` executable as plain JavaScript in apps/cli/dist/. The workspace's TypeScript
// is bundled (nothing is compiled at run time) with the pure JavaScript it always loads; the
// packages in PACKAGE_DEPENDENCIES and OPTIONAL_PACKAGE_DEPENDENCIES stay imports. Each
// subcommand's app is its own chunk, loaded only when that subcommand runs. The channel log's
// thread is a second entry (jsonl-thread.js, beside phonework.js): a worker is started from a file.

export const outDir = join(repoRoot, "apps", "cli", "dist");

/**
 * Builds the bundle into `dir` (default apps/cli/dist); returns the bundled third-party packages'
 * directories (for their licences). Its files are made ASCII (see ascii-output.ts); with
 * `proveAscii`, each one rewritten is first proven the same program.
 */
export async function buildCli(dir = outDir, { proveAscii = false } = {}): Promise<string[]> {
  rmSync(dir, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: {
      phonework: join(repoRoot, "apps", "cli", "src", "main.ts"),
      // The name jsonl-thread-client.ts starts it by (threadEntry).
      "jsonl-thread": join(repoRoot, "apps", "host", "src", "workspace", "jsonl-thread.ts"),
    },
    outdir: dir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    // Subpath imports (`openai/error`, `@modelcontextprotocol/sdk/client/index.js`) too.
    external: [...PACKAGE_DEPENDENCIES, ...OPTIONAL_PACKAGE_DEPENDENCIES].flatMap((name) => [
      name,
      `${name}/*`,
    ]),
    // Bundled CommonJS packages `require` Node's built-ins and look at `__dirname` (the Feishu SDK
    // reads its version from beside itself, and gives up politely when it is not there); an ES
    // module has neither of its own.
    banner: {
      js: [
        "#!/usr/bin/env node",
        'import { createRequire as __phoneworkRequire } from "node:module";',
        'import { fileURLToPath as __phoneworkFilePath } from "node:url";',
        "const require = __phoneworkRequire(import.meta.url);",
        "const __filename = __phoneworkFilePath(import.meta.url);",
        'const __dirname = __phoneworkFilePath(new URL(".", import.meta.url));',
      ].join("\n"),
    },
    // @discordjs/ws's ES module declares its own top-level `__dirname`, which collides with the
    // banner's in the chunk it lands in; its CommonJS build is wrapped in a function and uses ours.
    alias: {
      "@discordjs/ws": createRequire(join(repoRoot, "apps", "router", "package.json")).resolve(
        "@discordjs/ws",
      ),
    },
    plugins: [absentPackages(["zlib-sync"])],
    metafile: true,
    // Bundled code may check class and function names at run time: node-fetch, which grammY
    // uses, tells an AbortSignal by `constructor.name`; renamed (AbortSignal2) every Bot API call
    // failed in the bundle while the source worked.
    keepNames: true,
    // Flat: every file is one level below the package root, where `../package.json` is the manifest.
    chunkNames: "[name]-[hash]",
    sourcemap: false,
    legalComments: "none", // the licences are in THIRD_PARTY_LICENSES.md (see third-party-licenses.ts)
    logLevel: "warning",
  });
  for (const name of readdirSync(dir)) if (name.endsWith(".js")) asciiFile(join(dir, name), proveAscii);
  return bundledPackageDirs(Object.keys(metafile.inputs));
}

/**
 * Optional packages a bundled library tries to import and copes without (@discordjs/ws tries
 * zlib-sync, a native addon for a compression we do not ask for): each becomes a module that
 * throws when loaded, as the import would where the package is not installed, so the bundle
 * imports no package the installed CLI lacks.
 */
function absentPackages(names: string[]): Plugin {
  const filter = new RegExp(`^(${names.join("|").replaceAll(".", "\\.")})$`);
  return {
    name: "absent-packages",
    setup(bundle) {
      bundle.onResolve({ filter }, (args) => ({ path: args.path, namespace: "absent" }));
      bundle.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not part of phonework`)});`,
        loader: "js",
      }));
    },
  };
}

/** `node_modules/.pnpm/x@1/node_modules/@scope/x/lib/a.js` → `…/node_modules/@scope/x`, once each. */
export function bundledPackageDirs(inputs: string[]): string[] {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/@][^/]*)\//.exec(input);
    if (match?.[1]) dirs.add(join(repoRoot, match[1]));
  }
  return [...dirs].sort();
}
