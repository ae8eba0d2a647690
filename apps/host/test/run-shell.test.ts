import { existsSync } from "node:fs";
import { join } from "node:path";
import { processRunning, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { blockedReason } from "../src/sandbox/shell-guard.ts";
import { executeShell, RunShellArgs, shellTimeoutSeconds } from "../src/shell/run-shell.ts";
import { makeWorkspace } from "./support.ts";

const args = (input: Record<string, unknown>) => RunShellArgs.parse(input);
const noSignal = () => new AbortController().signal;

describe("run_shell", () => {
  it("returns stdout, stderr and the exit code, in WORKING_DIR by default", async () => {
    const { workingDir } = makeWorkspace();
    const out = await executeShell(workingDir, args({ command: "pwd; echo oops >&2; exit 3" }), noSignal());
    expect(out).toContain("exit code 3");
    // Each stream a fenced block: the platforms show it in monospace.
    expect(out).toContain(["stdout:", "```", workingDir, "```", "stderr:", "```", "oops", "```"].join("\n"));
  });

  it("runs in a cwd under WORKING_DIR", async () => {
    const { workingDir } = makeWorkspace();
    const out = await executeShell(workingDir, args({ command: "ls", cwd: "todo_app" }), noSignal());
    expect(out).toContain("README.md");
  });

  it("refuses a cwd outside WORKING_DIR: `..`, an absolute path, a symlink out", async () => {
    const { workingDir, outside } = makeWorkspace();
    for (const cwd of ["..", "../outside", outside, "/", "escape"]) {
      await expect(executeShell(workingDir, args({ command: "ls", cwd }), noSignal()), cwd).rejects.toThrow(
        /outside the working directory/,
      );
    }
  });

  it("truncates long output with a marker", async () => {
    const { workingDir } = makeWorkspace();
    const out = await executeShell(workingDir, args({ command: "seq 1 20000" }), noSignal());
    expect(out).toMatch(/…\[\d+ characters truncated\]…/);
    expect(out).toContain("\n1\n"); // the start is kept
    expect(out).toContain("20000"); // and the end
    expect(out.length).toBeLessThan(10_000);
  });

  it("refuses the blocklist's destructive patterns with a clear error, and runs nothing", async () => {
    const { workingDir } = makeWorkspace();
    const marker = join(workingDir, "ran.txt");
    for (const command of [
      "touch ran.txt && rm -rf /",
      "touch ran.txt; rm -fr ~",
      "touch ran.txt; mkfs.ext4 /tmp/phonework-no-such-device",
      "touch ran.txt; shutdown -h now",
      "touch ran.txt; reboot",
      "touch ran.txt && sudo poweroff",
      "touch ran.txt; dd if=/dev/zero of=/tmp/x",
      "touch ran.txt; :(){ :|:& };:",
    ]) {
      await expect(executeShell(workingDir, args({ command }), noSignal()), command).rejects.toThrow(
        /^refused: this command looks destructive/,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("lets ordinary commands that merely mention the words through", () => {
    for (const command of ["rm -rf ./build", "git log --format=%H", "grep reboot notes.txt", "echo 'dd'"]) {
      expect(blockedReason(command), command).toBeUndefined();
    }
  });

  it("kills the whole process tree on timeout", async () => {
    const { workingDir } = makeWorkspace();
    const marker = "14.1421"; // unique across the suite: files run side by side
    const out = await executeShell(
      workingDir,
      args({ command: `sleep ${marker} & sleep ${marker}; wait`, timeout: 0.3 }),
      noSignal(),
    );
    expect(out).toContain("killed after 0.3s (timeout)");
    await waitFor(() => !processRunning(`sleep ${marker}`), { message: "no sleep left behind" });
  });

  it("kills the whole process tree when cancelled", async () => {
    const { workingDir } = makeWorkspace();
    const marker = "16.1803"; // unique across the suite: files run side by side
    const controller = new AbortController();
    const run = executeShell(
      workingDir,
      args({ command: `bash -c "sleep ${marker}" & sleep ${marker}` }),
      controller.signal,
    );
    await waitFor(() => processRunning(`sleep ${marker}`));
    controller.abort();
    expect(await run).toContain("cancelled");
    await waitFor(() => !processRunning(`sleep ${marker}`), { message: "no sleep left behind" });
  });

  it("defaults the timeout to 30 s and caps it at 120 s", () => {
    expect(shellTimeoutSeconds(args({ command: "x" }).timeout)).toBe(30);
    expect(shellTimeoutSeconds(args({ command: "x", timeout: 999 }).timeout)).toBe(120);
    expect(() => args({ command: "" })).toThrow(/command must not be empty/);
  });
});
