import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installation } from "./installation.ts";
import { phonework, scope } from "./support.ts";

// The install itself, as `npm install -g` left it: what it holds, what it added to PATH, that it
// compiled nothing, its size, and that the executable runs on the Node under test.

/** The coding CLIs are the user's own and the rest are dev tools: none of them may come along. */
const FORBIDDEN = ["@anthropic-ai/claude-code", "@openai/codex", "tsx", "vitest", "typescript", "esbuild"];
const MAX_INSTALLED_MB = 120;

/** Every directory named `name` (a scoped name: its scope dir, then it) anywhere under `dir`. */
function findPackages(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(at, entry.name);
      if (path.endsWith(`/node_modules/${name}`)) found.push(path);
      walk(path);
    }
  };
  walk(dir);
  return found;
}

describe(`the installed package (node ${installation().nodeVersion})`, () => {
  it("holds no dev tools or coding CLIs, and adds only `phonework` to PATH", () => {
    const { prefix } = installation();
    for (const name of FORBIDDEN) expect(findPackages(prefix, name), name).toEqual([]);
    expect(readdirSync(join(prefix, "bin"))).toEqual(["phonework"]);
  });

  it("compiled nothing: every native part came prebuilt (Linux x64)", () => {
    const { compilerCalls, installLog, prebuiltOnly } = installation();
    if (!prebuiltOnly) return; // elsewhere a missing prebuilt binary may be compiled, as npm does
    expect(compilerCalls, "build tools called during the install").toEqual([]);
    expect(installLog).not.toMatch(/\bnode-gyp\b|\bgyp (info|ERR!)|\bprebuild-install\b|\bcc1plus\b/);
  });

  it(`is at most ${MAX_INSTALLED_MB} MB installed`, () => {
    expect(installation().installedMb).toBeLessThanOrEqual(MAX_INSTALLED_MB);
  });

  it("`phonework --version` prints the package's version; the doctor runs on the Node under test", async () => {
    const { version, nodeVersion } = installation();
    const printed = phonework(["--version"]);
    expect(await printed.exited).toEqual({ code: 0, signal: null });
    expect(printed.stdout().trim()).toBe(version);

    const dataDir = scope.tempDir();
    const doctor = phonework(["doctor", "router", "--offline"], {
      DATA_DIR: dataDir,
      CHAT: "none",
      ADMINS: "me",
    });
    await doctor.exited;
    expect(doctor.stdout()).toContain(`Node.js: v${nodeVersion}`);
  });

  it("a piped `phonework standalone` answers /nodes with its own node online, then exits 0", async () => {
    const dir = scope.tempDir();
    const standalone = phonework([
      "standalone",
      "--data-dir",
      join(dir, "data"),
      "--working-dir",
      dir,
      "--node-id",
      "install-check",
    ]);
    standalone.writeLine("/nodes");
    standalone.endInput();
    expect(await standalone.exited, standalone.stderr()).toEqual({ code: 0, signal: null });
    expect(standalone.stdout()).toMatch(/install-check +\[ACTIVE\].* online/);
  });
});
