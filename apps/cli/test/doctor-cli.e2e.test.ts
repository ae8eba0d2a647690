import { chmodSync } from "node:fs";
import { spawnApp } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { scope } from "./doctor-support.ts";

// `phonework doctor` as a user runs it: the real executable, one line per check, and the exit code
// equal to the number of ❌ lines.

/** Keys the test process might have that would change the outcome. */
const isolated = (dir: string) => ({
  PHONEWORK_CONFIG: "",
  ROUTER_SECRET: "",
  JOIN_CODE: "",
  OPENAI_API_KEY: "",
  ROUTER_CA_FILE: "",
  ROUTER_CERT_SHA256: "",
  WORKING_DIR: dir,
  HOME: dir,
  CLAUDE_BIN: "/nonexistent/claude",
  CODEX_BIN: "/nonexistent/codex",
});

async function doctor(env: Record<string, string>, args: string[]) {
  const child = scope.track(spawnApp("doctor", env, args));
  const { code } = await child.exited;
  const lines = child.stdout().split("\n").filter(Boolean);
  return { code, lines, failed: lines.filter((line) => line.startsWith("❌")), stderr: child.stderr() };
}

describe("phonework doctor (the executable)", () => {
  it("host --offline: every check on its own line; exit code = the number of ❌", async () => {
    const dir = scope.tempDir();
    chmodSync(dir, 0o700);
    const run = await doctor(isolated(dir), ["host", "--offline", "--data-dir", dir, "--node-id", "home-pc"]);
    const titles = run.lines
      .filter((line) => /^(✅|⚠️|❌) /.test(line))
      .map((line) => line.replace(/^\S+ /, "").split(":")[0]);
    expect(titles).toEqual([
      "Node.js",
      "checkpoints",
      "DATA_DIR",
      "config",
      "router",
      "router TLS",
      "node key",
      "WORKING_DIR",
      "sandbox",
      "claude",
      "codex",
      "model",
    ]);
    expect(run.lines).toContain(`✅ DATA_DIR: ${dir} (writable, mode 0700)`);
    expect(run.failed).toEqual([expect.stringMatching(/^❌ node key: not paired yet/)]);
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toMatch(/^1 to fix \(\d+ ok, \d+ warnings, 1 failed\)$/);
    expect(run.stderr).toBe("");
  });

  it("host against a router that is not there and a host not paired: two ❌, exit 2", async () => {
    const dir = scope.tempDir();
    const run = await doctor(isolated(dir), [
      "host",
      "--data-dir",
      dir,
      "--router-url",
      "ws://127.0.0.1:1/ws/node",
      "--node-id",
      "home-pc",
    ]);
    expect(run.failed).toEqual([
      expect.stringMatching(/^❌ router: nothing listens on 127\.0\.0\.1:1/),
      expect.stringMatching(/^❌ node key: not paired yet/),
    ]);
    expect(run.code).toBe(2);
  });
});
