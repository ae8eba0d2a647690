import type { SandboxNetwork } from "../config/sandbox-config.ts";
import { bwrapArgs } from "./mount-plan.ts";
import { type CommandScope, policyMounts, type SandboxSettings } from "./sandbox-policy.ts";

// Where the commands PhoneWork runs for a user run. runCommand builds `/bin/sh -c <command>` and
// hands that argv to the sandbox, which puts bwrap and its options in front: the command stays one
// argument, never re-quoted into a string, so it reaches the shell byte for byte.

export type { CommandScope } from "./sandbox-policy.ts";

/** Turns the argv of a command about to start in `cwd` into the argv actually run. */
export type WrapArgv = (argv: readonly string[], cwd: string) => string[];

export type SandboxStatus =
  | { active: true; bwrap: string; version: string; network: SandboxNetwork }
  | { active: false; reason: string };

/** The state in a few words, for the host's start line: "on: bubblewrap 0.8.0, network on", "off: <why>". */
export const describeSandbox = (status: SandboxStatus): string =>
  status.active ? `on: ${status.version}, network ${status.network}` : `off: ${status.reason}`;

export interface ShellSandbox {
  readonly status: SandboxStatus;
  /** The wrapper for a command run for `scope` (computed at each start: channels come and go). */
  forScope(scope: CommandScope): WrapArgv;
  /** The same for a terminal's program, which the keyboard signals (see forTerminal below). */
  forTerminal(scope: CommandScope): WrapArgv;
}

/** The signals a terminal's keyboard sends to its whole foreground process group. */
const KEYBOARD_SIGNALS = "INT,QUIT,TSTP";

/** Commands run as they are, with the host user's rights. */
export function noSandbox(reason: string): ShellSandbox {
  const asItIs = () => (argv: readonly string[]) => [...argv];
  return { status: { active: false, reason }, forScope: asItIs, forTerminal: asItIs };
}

export interface BwrapSandboxOptions {
  bwrap: string;
  version: string;
  network: SandboxNetwork;
  /** The variables to take out of a command's environment (see secret-env.ts), worked out at its start. */
  unsetEnv: () => readonly string[];
  settings: SandboxSettings;
}

export function bwrapSandbox(options: BwrapSandboxOptions): ShellSandbox {
  const { bwrap, version, network, unsetEnv, settings } = options;
  const forScope =
    (scope: CommandScope): WrapArgv =>
    (argv, cwd) => [
      bwrap,
      ...bwrapArgs({ mounts: policyMounts(settings, scope), network, unsetEnv: unsetEnv(), cwd }),
      "--",
      ...argv,
    ];
  return {
    status: { active: true, bwrap, version, network },
    forScope,
    // Ctrl-C reaches bwrap too, which shares the terminal's process group and would die of it,
    // taking the sandbox along: bwrap ignores the keyboard's signals, and the program gets them
    // back (env(1) of coreutils; argv is passed through unchanged, never made into a string).
    forTerminal: (scope) => (argv, cwd) => [
      "env",
      `--ignore-signal=${KEYBOARD_SIGNALS}`,
      ...forScope(scope)(["env", `--default-signal=${KEYBOARD_SIGNALS}`, ...argv], cwd),
    ],
  };
}
