import { homedir } from "node:os";
import { isAbsolute, relative, sep } from "node:path";
import { type Logger, StartupError } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { Channel, WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { probeSandbox, type SandboxProbe } from "./probe-sandbox.ts";
import { secretEnvNames } from "./secret-env.ts";
import { bwrapSandbox, noSandbox, type ShellSandbox } from "./shell-sandbox.ts";

// SANDBOX at start: on → sandboxed or refuse to start (one line saying why); auto → sandboxed where
// it works, else one warning and commands run as before; off → as before. The outcome is logged once.

/** The whole config: its secrets are taken out of commands' environment (see secret-env.ts). */
type SandboxHostConfig = Pick<
  HostConfig,
  "SANDBOX" | "SANDBOX_NETWORK" | "SANDBOX_WRITABLE" | "SANDBOX_HIDE" | "WORKING_DIR" | "DATA_DIR"
> &
  Readonly<Record<string, unknown>>;

export interface OpenSandboxDeps {
  /**
   * The environment commands run in (the host's own): its PATH finds bwrap, HOME and XDG_RUNTIME_DIR
   * say what to hide, and its secrets are taken out of each command's copy.
   */
  env: NodeJS.ProcessEnv;
  workspace: WorkspaceLayout;
  channelsOf: (userId: string) => Channel[];
  logger: Logger;
  probe?: typeof probeSandbox;
}

const inside = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
};

/** What SANDBOX and this machine allow, decided before anything is opened (SANDBOX=on without it stops here). */
export type SandboxDecision =
  | { sandboxed: false; reason: string }
  | { sandboxed: true; probe: Extract<SandboxProbe, { ok: true }> };

export function decideSandbox(
  config: SandboxHostConfig,
  deps: Pick<OpenSandboxDeps, "env" | "logger" | "probe">,
): SandboxDecision {
  const logger = deps.logger.child({ component: "sandbox" });
  if (config.SANDBOX === "off") {
    logger.info("commands run unsandboxed, with this user's rights (SANDBOX=off)");
    return { sandboxed: false, reason: "SANDBOX=off" };
  }
  const probe: SandboxProbe = (deps.probe ?? probeSandbox)({
    path: deps.env.PATH,
    network: config.SANDBOX_NETWORK,
  });
  if (!probe.ok) {
    if (config.SANDBOX === "on") throw new StartupError(`SANDBOX=on, but ${probe.reason}`);
    logger.warn(
      { reason: probe.reason },
      `no sandbox: commands run with this user's rights (SANDBOX=auto; ${probe.reason}). Set SANDBOX=on to refuse to start without it, or SANDBOX=off`,
    );
    return { sandboxed: false, reason: probe.reason };
  }
  return { sandboxed: true, probe };
}

/** The sandbox a decision allows, around the workspace's chats. */
export function buildSandbox(
  config: SandboxHostConfig,
  decision: SandboxDecision,
  deps: Omit<OpenSandboxDeps, "probe">,
): ShellSandbox {
  if (!decision.sandboxed) return noSandbox(decision.reason);
  const { probe } = decision;
  const logger = deps.logger.child({ component: "sandbox" });
  if (inside(config.WORKING_DIR, config.DATA_DIR))
    logger.warn(
      { workingDir: config.WORKING_DIR, dataDir: config.DATA_DIR },
      "WORKING_DIR is DATA_DIR or inside it: commands can see that part of DATA_DIR",
    );
  const sandbox = bwrapSandbox({
    bwrap: probe.bwrap,
    version: probe.version,
    network: config.SANDBOX_NETWORK,
    unsetEnv: () => secretEnvNames(config, deps.env),
    settings: {
      workingDir: config.WORKING_DIR,
      dataDir: config.DATA_DIR,
      workspace: deps.workspace,
      home: deps.env.HOME || homedir(),
      runtimeDir: deps.env.XDG_RUNTIME_DIR,
      writable: config.SANDBOX_WRITABLE,
      hide: config.SANDBOX_HIDE,
      channelsOf: deps.channelsOf,
    },
  });
  logger.info(
    { bwrap: probe.bwrap, version: probe.version, network: config.SANDBOX_NETWORK },
    "commands run in a sandbox: read-only but for WORKING_DIR and scratch, DATA_DIR and credentials hidden",
  );
  return sandbox;
}

/** Decides and builds in one step (tests, benches). */
export function openSandbox(config: SandboxHostConfig, deps: OpenSandboxDeps): ShellSandbox {
  return buildSandbox(config, decideSandbox(config, deps), deps);
}
