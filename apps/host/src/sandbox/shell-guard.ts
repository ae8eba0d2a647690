import { NestedTooDeep, type SimpleCommand, simpleCommands } from "./shell-commands.ts";

// A blocklist of destructive commands, judged per simple command after looking
// through wrappers (sudo, env, sh -c, $(…), backticks, find -exec, xargs, here-documents). It
// stops accidents and obvious mistakes by the model; it is NOT a sandbox: whatever is only
// known at run time (an interpreter such as `python -c`, an encoded payload piped to a shell,
// a variable holding the command, a script written to disk and run) gets past it. See the README.

type Rule = (command: SimpleCommand) => string | undefined;

/** `/`, `/*`, `~`, `~/`, `$HOME`, `$HOME/*` and the like: everything, or the whole home. */
const WHOLE_TREE = /^(?:\/+|(?:~|\$HOME)\/*)(?:\.\/*)*\*?$/;
const RECURSIVE_FLAG = /^(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)$/;
const RAW_DISK = /^\/dev\/(?:sd|nvme|hd|vd|xvd|mmcblk|disk)/;
const FORK_BOMB = /([A-Za-z_]\w*|:)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*&?\s*\1\s*&/;

const recursiveOver = ([, ...args]: string[]) =>
  args.some((arg) => RECURSIVE_FLAG.test(arg)) && args.some((arg) => WHOLE_TREE.test(arg));

const RULES: Rule[] = [
  ({ argv }) =>
    argv[0] === "rm" && recursiveOver(argv) ? "recursive delete of / or the home directory" : undefined,
  ({ argv }) => (argv.includes("--no-preserve-root") ? "rm --no-preserve-root" : undefined),
  ({ argv: [program] }) =>
    program && /^(?:mkfs(?:\..+)?|mke2fs)$/.test(program) ? "formatting a filesystem (mkfs)" : undefined,
  ({ argv: [program, ...args] }) =>
    program && /^format(?:\.com)?$/i.test(program) && args.some((arg) => /^[a-z]:$/i.test(arg))
      ? "formatting a drive"
      : undefined,
  ({ argv: [program, ...args] }) =>
    (program && ["shutdown", "reboot", "halt", "poweroff"].includes(program)) ||
    (program === "systemctl" && args.some((arg) => ["reboot", "poweroff", "halt", "kexec"].includes(arg))) ||
    (program && ["init", "telinit"].includes(program) && (args[0] === "0" || args[0] === "6"))
      ? "shutting down or rebooting the machine"
      : undefined,
  ({ argv: [program, ...args] }) =>
    program === "dd" && args.some((arg) => arg.startsWith("if=")) ? "raw disk copy (dd if=)" : undefined,
  ({ argv: [program, ...args], redirects }) =>
    redirects.some((file) => RAW_DISK.test(file)) ||
    (program === "tee" && args.some((arg) => RAW_DISK.test(arg)))
      ? "writing to a raw disk device"
      : undefined,
  ({ argv }) =>
    argv[0] && ["chmod", "chown", "chgrp"].includes(argv[0]) && recursiveOver(argv)
      ? "recursive chmod of /"
      : undefined,
];

/** The reason a command is refused, or undefined if the blocklist lets it through. */
export function blockedReason(command: string): string | undefined {
  if (FORK_BOMB.test(command)) return "fork bomb";
  let commands: SimpleCommand[];
  try {
    commands = simpleCommands(command);
  } catch (error) {
    if (error instanceof NestedTooDeep) return "shells nested too deeply to check";
    throw error;
  }
  for (const simple of commands) {
    for (const rule of RULES) {
      const reason = rule(simple);
      if (reason) return reason;
    }
  }
  return undefined;
}
