import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildPhonework } from "./build-phonework.ts";
import { thirdPartyLicenses } from "./third-party-licenses.ts";
import {
  cliVersion,
  packageDependencies,
  packageOptionalDependencies,
  repoRoot,
  rootEngines,
} from "./workspace-manifests.ts";

// `pnpm package [dir]`: dist/phonework-<version>.tgz (or <dir>/phonework-<version>.tgz), installable
// without the repo:
//   npm install -g ./dist/phonework-<version>.tgz && phonework --version
// The manifest lists only the runtime packages not bundled: no test tools, no coding CLIs (those are the
// user's own, found on PATH or through CLAUDE_BIN / CODEX_BIN).

// Another directory keeps the repo's dist/ as it is: the tests and the install check pack into their own.
const distDir = resolve(process.argv[2] ?? join(repoRoot, "dist"));
const stage = join(distDir, "stage");

// Exactly what `pnpm build` makes (and the tests run), built into the package's own stage: the
// router's web console finds its page beside the bundle.
mkdirSync(distDir, { recursive: true });
rmSync(stage, { recursive: true, force: true });
// The ASCII rewrite is proven here (see ascii-output.ts: two esbuild passes over the bundle, ~3 CPU-s);
// the test suite's packing test, which checks the layout on two busy cores, skips the proof with
// PHONEWORK_ASCII_PROOF=off (the installed suite and the bench pack with it).
const proveAscii = process.env.PHONEWORK_ASCII_PROOF !== "off";
const { cliPackages, consolePackages } = await buildPhonework(join(stage, "dist"), { proveAscii });
const bundled = [...cliPackages, ...consolePackages];
// One tarball in dist/, so `npm install -g ./dist/phonework-*.tgz` (the README) installs one version.
for (const old of readdirSync(distDir)) if (/^phonework-.*\.tgz$/.test(old)) rmSync(join(distDir, old));
chmodSync(join(stage, "dist", "phonework.js"), 0o755);
copyFileSync(join(repoRoot, "README.md"), join(stage, "README.md"));
writeFileSync(join(stage, "THIRD_PARTY_LICENSES.md"), thirdPartyLicenses(bundled));
const version = cliVersion();
const manifest = {
  name: "phonework",
  version,
  description: "Run your own computers from a chat app: a router on a VPS, a host on each PC.",
  type: "module",
  bin: { phonework: "dist/phonework.js" },
  files: ["dist", "README.md", "THIRD_PARTY_LICENSES.md"],
  engines: rootEngines(),
  dependencies: packageDependencies(),
  optionalDependencies: packageOptionalDependencies(),
};
writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", distDir], {
  cwd: stage,
  encoding: "utf8",
}).trim();
rmSync(stage, { recursive: true, force: true });
process.stdout.write(`${join(distDir, tarball)}\n`);
