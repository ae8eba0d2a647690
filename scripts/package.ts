import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCli, outDir } from "./bundle-cli.ts";
import { cliVersion, repoRoot, rootEngines, runtimeDependencies } from "./workspace-manifests.ts";

// `pnpm package`: dist/phonework-<version>.tgz, installable without the repo:
//   npm install -g ./dist/phonework-<version>.tgz && phonework --version
// The manifest lists only runtime dependencies: no test tools, no coding CLIs (those are the
// user's own, found on PATH or through CLAUDE_BIN / CODEX_BIN).

const distDir = join(repoRoot, "dist");
const stage = join(distDir, "stage");

await buildCli();
// One tarball in dist/, so `npm install -g ./dist/phonework-*.tgz` (the README) installs one version.
mkdirSync(distDir, { recursive: true });
for (const old of readdirSync(distDir)) if (/^phonework-.*\.tgz$/.test(old)) rmSync(join(distDir, old));
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(outDir, join(stage, "dist"), { recursive: true });
chmodSync(join(stage, "dist", "phonework.js"), 0o755);
copyFileSync(join(repoRoot, "README.md"), join(stage, "README.md"));
const version = cliVersion();
const manifest = {
  name: "phonework",
  version,
  description: "Run your own computers from a chat app: a router on a VPS, a host on each PC.",
  type: "module",
  bin: { phonework: "dist/phonework.js" },
  files: ["dist", "README.md"],
  engines: rootEngines(),
  dependencies: runtimeDependencies(),
};
writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", distDir], {
  cwd: stage,
  encoding: "utf8",
}).trim();
rmSync(stage, { recursive: true, force: true });
process.stdout.write(`${join(distDir, tarball)}\n`);
