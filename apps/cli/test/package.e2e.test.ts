import { execFile, execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { makeTempDir, repoRoot, type TempDir } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What `pnpm package` puts in the tarball users install: the manifest and the file list, read back
// from the .tgz itself. Installing it and running it is the installed suite (pnpm test:installed).

interface PackedManifest {
  name: string;
  version: string;
  type?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const root = readJson<{ engines: Record<string, string>; devDependencies: Record<string, string> }>(
  join(repoRoot, "package.json"),
);
const cliVersion = readJson<{ version: string }>(join(repoRoot, "apps/cli/package.json")).version;

let dir: TempDir;
let tarball: string;
let pkg: string;
let manifest: PackedManifest;
let files: string[];

/** Every file under `dir`, as a relative path with `/`. */
function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** The package a bare import specifier names: `pino/file` → pino, `@scope/a/b` → @scope/a. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

// Packing is a build and a `npm pack` (15–40 s on two busy cores). Awaited, not synchronous: the
// other test files sharing this worker keep running meanwhile. Without the proof of the bundle's
// ASCII rewrite (~3 CPU-s; the installed suite packs with it): the files are the same.
beforeAll(async () => {
  dir = makeTempDir("phonework-package-");
  const { stdout: printed } = await promisify(execFile)("pnpm", ["-s", "package", join(dir.path, "out")], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, PHONEWORK_ASCII_PROOF: "off" },
  });
  tarball = printed.trim().split("\n").at(-1) ?? "";
  execFileSync("tar", ["-xzf", tarball, "-C", dir.path]);
  pkg = join(dir.path, "package");
  manifest = readJson<PackedManifest>(join(pkg, "package.json"));
  files = listFiles(pkg).sort();
}, 120_000);

afterAll(() => dir?.remove());

describe("pnpm package", () => {
  it("writes phonework-<version>.tgz whose manifest is the published one", () => {
    expect(basename(tarball)).toBe(`phonework-${cliVersion}.tgz`);
    expect(manifest).toMatchObject({
      name: "phonework",
      version: cliVersion,
      type: "module",
      bin: { phonework: "dist/phonework.js" },
      engines: { node: "^22.12 || >=24" },
    });
    expect(manifest.engines).toEqual(root.engines);
    // Nothing runs at install time but the dependencies' own scripts, and npm may publish it.
    for (const key of ["scripts", "devDependencies", "private", "workspaces"])
      expect(manifest).not.toHaveProperty(key);
  });

  it("depends on third-party runtime packages only: no workspace package, dev tool or coding CLI", () => {
    const dependencies = manifest.dependencies ?? {};
    expect(Object.keys(dependencies)).toContain("better-sqlite3");
    for (const [name, range] of Object.entries(dependencies)) {
      expect(name).not.toMatch(/^@phonework\//);
      expect(range, name).not.toMatch(/^(workspace|link|file):/);
    }
    const devTools = [...Object.keys(root.devDependencies), "@anthropic-ai/claude-code", "@openai/codex"];
    expect(devTools).toEqual(expect.arrayContaining(["tsx", "vitest", "typescript"]));
    for (const tool of devTools) expect(Object.keys(dependencies)).not.toContain(tool);
  });

  it("every package the bundle imports is a dependency, so the installed CLI resolves it", () => {
    const imported = new Set<string>();
    for (const file of files.filter((name) => name.endsWith(".js"))) {
      const code = readFileSync(join(pkg, file), "utf8");
      const specifiers = [
        ...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm),
        ...code.matchAll(/^import\s*"([^"]+)"/gm),
        ...code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
        // Required on demand: `createRequire(import.meta.url)("yaml")`.
        ...code.matchAll(/createRequire\([^)]*\)\(\s*"([^"]+)"\s*\)/g),
      ].map((match) => match[1] ?? "");
      for (const specifier of specifiers)
        if (!specifier.startsWith(".") && !isBuiltin(specifier)) imported.add(packageName(specifier));
    }
    expect([...imported].sort()).toEqual(expect.arrayContaining(["better-sqlite3", "jiti", "yaml"]));
    // node-pty, sharp and sodium-native are optional: a machine where one does not install still runs
    // (no terminals there; images go to the model by path only; OpenSSL checks hosts' signatures).
    const declared = { ...manifest.dependencies, ...manifest.optionalDependencies };
    expect([...imported].filter((name) => !(name in declared))).toEqual([]);
    expect(Object.keys(manifest.optionalDependencies ?? {})).toEqual([
      "@lydell/node-pty",
      "sharp",
      "sodium-native",
    ]);
    // The router requires sodium-native on its first handshake, so the bundle names it.
    expect(imported).toContain("sodium-native");
  });

  it("its code is ASCII: V8 keeps a loaded file's source at one byte a character, not two", () => {
    const wide = files
      .filter((file) => file.startsWith("dist/") && file.endsWith(".js") && !file.startsWith("dist/console/"))
      .filter((file) => /[\u0080-\uffff]/.test(readFileSync(join(pkg, file), "utf8")));
    expect(wide).toEqual([]);
  });

  it("holds the bundle, the manifest, the README and the bundled code's licences: no TypeScript, no tests, no source maps", () => {
    expect(files).toEqual(
      expect.arrayContaining(["README.md", "THIRD_PARTY_LICENSES.md", "dist/phonework.js", "package.json"]),
    );
    for (const file of files)
      expect(file).toMatch(
        /^(dist\/[\w.-]+\.js|dist\/console\/[\w.-]+\.(js|css)|package\.json|README\.md|THIRD_PARTY_LICENSES\.md)$/,
      );
    for (const file of files) expect(file).not.toMatch(/\.([cm]?ts|map)$|\.test\.|(^|\/)test\//);
    for (const file of files.filter((name) => name.startsWith("dist/"))) {
      const code = readFileSync(join(pkg, file), "utf8");
      expect(code, file).not.toMatch(/@phonework\/testkit|from "vitest"|from "tsx/);
    }
  });

  it("the bundled packages' licences travel with them; the installed ones are not bundled", () => {
    const licences = readFileSync(join(pkg, "THIRD_PARTY_LICENSES.md"), "utf8");
    for (const bundled of ["fastify", "zod", "pino", "ws", "commander", "croner", "preact", "@xterm/xterm"])
      expect(licences, bundled).toMatch(new RegExp(`^## ${bundled}@\\d+\\.\\d+\\.\\d+ — \\S+`, "m"));
    for (const installed of Object.keys(manifest.dependencies ?? {}))
      expect(licences, installed).not.toContain(`## ${installed}@`);
  });

  it("`phonework --version` loads nothing but Node's built-ins: the entry imports no package", () => {
    const entry = readFileSync(join(pkg, "dist/phonework.js"), "utf8");
    const staticImports = [...entry.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map(
      (match) => match[1] ?? "",
    );
    expect(staticImports.filter((name) => !name.startsWith("./") && !isBuiltin(name))).toEqual([]);
  });

  it("dist/phonework.js is executable and starts with a node shebang", () => {
    const entry = join(pkg, "dist/phonework.js");
    expect(statSync(entry).mode & 0o111).toBe(0o111);
    expect(readFileSync(entry, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });
});
