import { rmSync } from "node:fs";
import { basename } from "node:path";
import { build, type Plugin } from "esbuild";
import { makeTempDir } from "./temp-dir.ts";

// A TypeScript script that a test starts as processes of its own (eight racers over a lock, a
// process killed mid-commit), built once into one JavaScript file: each start is then plain
// `node <file>`, not the tsx loader starting up and transpiling the script and all it imports again
// (about 0.3 CPU-s a start). The workspace's TypeScript is bundled; packages from node_modules stay
// imports of their own files, so a native addon (better-sqlite3) loads as it does from the source.

/** The built scripts of this process, in one temp dir removed at exit. */
let outDir: string | undefined;
const built = new Map<string, Promise<string>>();

/** The path of `entry` (a .ts file) built to JavaScript; built once per test worker. */
export function bundledScript(entry: string): Promise<string> {
  let file = built.get(entry);
  if (!file) {
    file = bundle(entry);
    built.set(entry, file);
  }
  return file;
}

async function bundle(entry: string): Promise<string> {
  if (!outDir) {
    const dir = makeTempDir("phonework-script-");
    outDir = dir.path;
    process.once("exit", () => rmSync(dir.path, { recursive: true, force: true }));
  }
  const outfile = `${outDir}/${basename(entry, ".ts")}-${built.size}.mjs`;
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    plugins: [packagesByPath],
    logLevel: "warning",
  });
  return outfile;
}

/** node_modules packages stay external, imported by the absolute path of the file they resolve to. */
const packagesByPath: Plugin = {
  name: "packages-by-path",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@phonework/") || args.pluginData === packagesByPath) return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: packagesByPath,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.external ? args.path : resolved.path, external: true };
    });
  },
};
