import { spawnSync } from "node:child_process";
import type { SandboxNetwork } from "../config/sandbox-config.ts";
import { findExecutable } from "../os/find-executable.ts";
import { baseMounts, bwrapArgs } from "./mount-plan.ts";

// Whether commands can run in a sandbox here, found out by running one: bwrap can be installed and
// still unusable (no unprivileged user namespaces, a container without the capability, seccomp).
// Used once at start by the host and by `phonework doctor`.

export type SandboxProbe = { ok: true; bwrap: string; version: string } | { ok: false; reason: string };

export interface ProbeOptions {
  /** The PATH bwrap is looked for on (the host's commands' environment). */
  path: string | undefined;
  network: SandboxNetwork;
  platform?: NodeJS.Platform;
  timeoutMs?: number;
}

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";

/** The first line of what bwrap said, else how it ended. */
function why(result: ReturnType<typeof spawnSync>): string {
  const said = String(result.stderr ?? "")
    .trim()
    .split("\n")[0];
  if (said) return said;
  if (result.error) return result.error.message;
  return result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`;
}

export function probeSandbox(options: ProbeOptions): SandboxProbe {
  const platform = options.platform ?? process.platform;
  if (platform !== "linux")
    return {
      ok: false,
      reason: `the sandbox uses bubblewrap, which runs on Linux only (this is ${platform})`,
    };
  const bwrap = findExecutable("bwrap", options.path);
  if (!bwrap) return { ok: false, reason: `bwrap is not on PATH; ${INSTALL_HINT}` };
  const timeout = options.timeoutMs ?? 10_000;
  // The same namespaces and mounts every command gets, around a command that does nothing.
  const args = bwrapArgs({ mounts: baseMounts(), network: options.network, unsetEnv: [], cwd: "/" });
  const trial = spawnSync(bwrap, [...args, "--", "/bin/sh", "-c", "exit 0"], { encoding: "utf8", timeout });
  if (trial.status !== 0)
    return { ok: false, reason: `${bwrap} cannot create a sandbox here: ${why(trial)}` };
  const version = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout });
  return { ok: true, bwrap, version: String(version.stdout ?? "").trim() || "bubblewrap" };
}
