import { dirname } from "node:path";
import { findExecutable } from "@phonework/host";
import { describe, expect, it } from "vitest";
import { fakeExecutable, hostEnv, runDoctorIn, scope } from "./doctor-support.ts";

// `phonework doctor host` says whether the host's commands would run in the sandbox, and why not,
// by trying bwrap the way the host does at start.

const INSTALL =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";
const FIX =
  "install bubblewrap (apt-get install bubblewrap) and make sure unprivileged user namespaces are allowed (in Docker: the host service's security_opt in docker-compose.yml)";

describe("doctor: the sandbox", () => {
  it("active where bwrap works; off says so and why; missing is ⚠️ under auto and ❌ under SANDBOX=on", async () => {
    const bwrap = findExecutable("bwrap", process.env.PATH) ?? "";
    expect(bwrap, "bubblewrap must be installed for this test (.ci/run installs it)").not.toBe("");
    const active = await runDoctorIn("host", { ...hostEnv(), PATH: dirname(bwrap) }, { offline: true });
    expect(active.line("sandbox")).toMatch(
      new RegExp(`^✅ sandbox: active: bubblewrap [\\d.]+ \\(${bwrap}\\), network on$`),
    );
    const offline = await runDoctorIn(
      "host",
      { ...hostEnv(), PATH: dirname(bwrap), SANDBOX_NETWORK: "off" },
      { offline: true },
    );
    expect(offline.line("sandbox")).toMatch(/, network off$/);

    const off = await runDoctorIn("host", { ...hostEnv(), SANDBOX: "off" }, { offline: true });
    expect(off.line("sandbox")).toBe(
      "⚠️ sandbox: off (SANDBOX=off): commands run with this user's full rights → set SANDBOX=auto to use bubblewrap where it works",
    );
    const auto = await runDoctorIn("host", hostEnv(), { offline: true });
    expect(auto.line("sandbox")).toBe(
      `⚠️ sandbox: off: bwrap is not on PATH; ${INSTALL}; commands run unsandboxed, with this user's full rights (SANDBOX=auto) → ${FIX}`,
    );
    const on = await runDoctorIn("host", { ...hostEnv(), SANDBOX: "on" }, { offline: true });
    expect(on.line("sandbox")).toBe(
      `❌ sandbox: SANDBOX=on, but bwrap is not on PATH; ${INSTALL}: the host will not start → ${FIX}`,
    );
    expect(on.failures - auto.failures).toBe(1);
  });

  it("a bwrap that is installed but cannot create namespaces is off, with bwrap's reason", async () => {
    const bin = scope.tempDir();
    fakeExecutable(bin, "bwrap", 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1');
    const run = await runDoctorIn("host", { ...hostEnv(), PATH: bin }, { offline: true });
    expect(run.line("sandbox")).toBe(
      `⚠️ sandbox: off: ${bin}/bwrap cannot create a sandbox here: bwrap: setting up uid map: Permission denied; commands run unsandboxed, with this user's full rights (SANDBOX=auto) → ${FIX}`,
    );
  });
});
