import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { checkLine } from "../src/doctor/check-printer.ts";
import { checkDataDir } from "../src/doctor/checks/data-dir.ts";
import { checkNodeVersion } from "../src/doctor/checks/node-version.ts";
import { fakeExecutable, hostEnv, runDoctorIn, scope } from "./doctor-support.ts";

// The checks that need nothing but this machine: Node.js, DATA_DIR, the config, the coding CLIs.

const asRoot = process.getuid?.() === 0;

describe("doctor: Node.js", () => {
  it("follows engines (^22.12 || >=24); Node 20, past its end of life, is refused and says so", () => {
    for (const version of ["v22.12.0", "v22.20.1", "v24.0.0", "v25.3.0"])
      expect(checkNodeVersion(version).status, version).toBe("ok");
    for (const version of ["v18.20.0", "v21.7.0", "v22.11.0", "v23.9.0"])
      expect(checkLine(checkNodeVersion(version)), version).toBe(
        `❌ Node.js: ${version} is not supported (^22.12 or ≥ 24) → install Node.js 22 or 24 (LTS) and run PhoneWork with it`,
      );
    expect(checkLine(checkNodeVersion("v20.19.0"))).toBe(
      "❌ Node.js: v20.19.0: Node 20 is past its end of life (30 April 2026) and not supported → install Node.js 22 or 24 (LTS) and run PhoneWork with it",
    );
  });
});

describe("doctor: DATA_DIR", () => {
  it("0700 and writable is ✅; wider is ⚠️ with the chmod; missing is ⚠️ (it will be created)", () => {
    const dir = scope.tempDir();
    chmodSync(dir, 0o700);
    expect(checkLine(checkDataDir(dir))).toBe(`✅ DATA_DIR: ${dir} (writable, mode 0700)`);
    chmodSync(dir, 0o755);
    expect(checkLine(checkDataDir(dir))).toBe(
      `⚠️ DATA_DIR: ${dir} is mode 0755: other users can look into it (keys, history) → chmod 700 ${dir}`,
    );
    expect(checkLine(checkDataDir(join(dir, "a", "b")))).toBe(
      `⚠️ DATA_DIR: ${join(dir, "a", "b")} does not exist yet; it is created (mode 0700) at the first start`,
    );
  });

  it("a file, or a path under a file, is ❌", () => {
    const dir = scope.tempDir();
    const file = join(dir, "file");
    writeFileSync(file, "");
    expect(checkLine(checkDataDir(file))).toBe(
      `❌ DATA_DIR: ${file} is not a directory → point DATA_DIR at a directory`,
    );
    expect(checkLine(checkDataDir(join(file, "data")))).toMatch(
      new RegExp(
        `^❌ DATA_DIR: ${join(file, "data")} does not exist and cannot be created: ${file} is not a directory → `,
      ),
    );
  });

  // Root may write anywhere, so as root the check runs in a child process as `nobody`.
  it("not writable, or under a parent that is not, is ❌", () => {
    const dir = scope.tempDir();
    chmodSync(dir, 0o755); // `nobody` may look in, not write
    const locked = join(dir, "locked");
    mkdirSync(locked, { mode: 0o555 });
    scope.add(() => chmodSync(locked, 0o700));
    const check = asRoot ? checkDataDirAsNobody : checkDataDir;
    expect(check(locked)).toMatchObject({
      status: "fail",
      detail: `${locked} is not writable by this user`,
    });
    expect(check(join(locked, "data"))).toMatchObject({
      status: "fail",
      detail: `${join(locked, "data")} does not exist and cannot be created: ${locked} is not writable`,
    });
  });
});

/** checkDataDir in a real child process whose user is `nobody` (setpriv, util-linux). */
function checkDataDirAsNobody(dir: string): unknown {
  const module = pathToFileURL(
    join(import.meta.dirname, "..", "src", "doctor", "checks", "data-dir.ts"),
  ).href;
  const script = `const { checkDataDir } = await import(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(checkDataDir(${JSON.stringify(dir)})));`;
  const out = execFileSync(
    "setpriv",
    [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      process.execPath,
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      script,
    ],
    { encoding: "utf8", cwd: repoRoot },
  );
  return JSON.parse(out);
}

describe("doctor: the config", () => {
  it("an invalid key is one ❌ naming it; the checks needing the config are skipped; exit = number of ❌", async () => {
    const env = hostEnv({ ROUTER_URL: "http://router.example.com" });
    const run = await runDoctorIn("host", env);
    expect(run.line("config")).toMatch(
      /^❌ config: invalid configuration: ROUTER_URL: must be a ws:\/\/ or wss:\/\/ URL/,
    );
    expect(run.line("other checks")).toBe(
      "⚠️ other checks: skipped until the config is valid: router, router TLS, node key, WORKING_DIR, sandbox, claude, codex, model",
    );
    expect(run.line("DATA_DIR")).toMatch(/^✅ DATA_DIR: /); // resolved on its own, still checked
    expect(run.failures).toBe(1);
    expect(run.lines.filter((line) => line.startsWith("❌"))).toHaveLength(1);
  });

  it("plaintext ws:// to another machine is ❌ as the host refuses it; a config file with unknown keys is ⚠️", async () => {
    const insecure = await runDoctorIn("host", hostEnv({ ROUTER_URL: "ws://router.example.com/ws/node" }));
    expect(insecure.line("config")).toContain(
      "ROUTER_URL: is ws:// (plaintext) to a router on another machine",
    );

    const dir = scope.tempDir();
    const file = join(dir, "phonework.yaml");
    writeFileSync(file, "ROUTER_PORT: 0\nROUTR_HOST: 127.0.0.1\n");
    const typo = await runDoctorIn("router", { DATA_DIR: dir, PHONEWORK_CONFIG: file, CHAT: "none" });
    expect(typo.line("config")).toBe(`✅ config: valid (${file}, the environment and flags)`);
    expect(typo.line("config file")).toBe(
      `⚠️ config file: ${file} has keys this program does not use: ROUTR_HOST → check their spelling, or remove them`,
    );
  });

  it("a secret from the environment never shows, even inside an error", async () => {
    const secret = "feishu-secret-value-789";
    const env = {
      ...hostEnv(),
      FEISHU_APP_ID: "cli_x",
      FEISHU_APP_SECRET: secret,
      FEISHU_DOMAIN: `http://${secret}.invalid`,
    };
    const run = await runDoctorIn("router", env);
    expect(run.output).not.toContain(secret);
    expect(run.line("Feishu")).toMatch(/^❌ Feishu: cannot reach http:\/\/\[redacted\]\.invalid/);
  });
});

describe("doctor: claude and codex", () => {
  it("found (CLAUDE_BIN / CODEX_BIN or PATH) with their version; missing is ⚠️, not ❌", async () => {
    const bin = scope.tempDir();
    fakeExecutable(bin, "claude", 'echo "2.1.0 (Claude Code)"');
    const codex = fakeExecutable(bin, "my-codex", 'echo "codex-cli 0.50.0"');
    const run = await runDoctorIn("standalone", { ...hostEnv(), PATH: bin, CODEX_BIN: codex });
    expect(run.line("claude")).toBe(`✅ claude: 2.1.0 (Claude Code) (${join(bin, "claude")})`);
    expect(run.line("codex")).toBe(`✅ codex: codex-cli 0.50.0 (${codex})`);

    const none = await runDoctorIn("standalone", hostEnv());
    expect(none.line("claude")).toBe(
      "⚠️ claude: `claude` not found on PATH: coding sessions with claude are unavailable → install it (npm i -g @anthropic-ai/claude-code) or set CLAUDE_BIN",
    );
    expect(none.line("codex")).toMatch(/^⚠️ codex: `codex` not found on PATH/);
    expect(none.failures).toBe(0);
  });

  it("one that fails or hangs on --version is ⚠️ saying so", async () => {
    const bin = scope.tempDir();
    fakeExecutable(bin, "claude", "exit 3");
    fakeExecutable(bin, "codex", "read line"); // waits on stdin, which stays open
    const run = await runDoctorIn("standalone", { ...hostEnv(), PATH: bin }, { timeoutMs: 500 });
    expect(run.line("claude")).toBe(
      `⚠️ claude: ${join(bin, "claude")} does not answer --version (3) → check that ${join(bin, "claude")} runs, or set CLAUDE_BIN`,
    );
    expect(run.line("codex")).toContain("does not answer --version (no answer in 0.5 s)");
  });
});
