import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppName } from "../programs/app-name.ts";
import { type CommandRunner, firstLine } from "./command-runner.ts";
import {
  runStep,
  type ServiceAction,
  type ServiceBackend,
  shellLine,
  writeCommandFacts,
} from "./service-backend.ts";
import { ServiceError } from "./service-error.ts";
import { CONFIG_ERROR_EXIT, RESTART_DELAY_S, type ServiceScope, systemdUnitName } from "./service-spec.ts";
import { splitCommandLine } from "./systemd-quote.ts";
import { annotateUnit, parseUnitFile, renderSystemdUnit } from "./systemd-unit.ts";
import { removeServiceFile, writeServiceFile } from "./write-service-file.ts";

// A systemd unit: written to the unit directory, then `systemctl [--user]` reloads, enables and
// (re)starts it. Restart, not `enable --now`: a reinstall with another config must take effect.

export interface SystemdBackendOptions {
  app: AppName;
  scope: ServiceScope;
  /** ~/.config/systemd/user (or $XDG_CONFIG_HOME/systemd/user); /etc/systemd/system for --system. */
  unitDir: string;
  /** Exists only when systemd is the init system (sd_booted): /run/systemd/system. */
  systemdRunDir: string;
  runner: CommandRunner;
  /** Whose session a user unit lives in, for the `loginctl enable-linger` hint. */
  userName: string;
  /** A system unit is only changed as root; said up front, before systemctl asks for a password. */
  isRoot: boolean;
}

export function systemdBackend(options: SystemdBackendOptions): ServiceBackend {
  const { scope, runner } = options;
  const name = systemdUnitName(options.app);
  const file = join(options.unitDir, name);
  const userFlag = scope === "user" ? ["--user"] : [];
  const systemctl = (...args: string[]) => ["systemctl", ...userFlag, ...args];
  const linger = ["loginctl", "enable-linger", options.userName];
  const commands: Record<ServiceAction, string[][]> = {
    install: [systemctl("daemon-reload"), systemctl("enable", name), systemctl("restart", name)],
    uninstall: [systemctl("disable", "--now", name), ["rm", "-f", file], systemctl("daemon-reload")],
    status: [systemctl("status", name)],
  };

  const run = (argv: string[], out: NodeJS.WritableStream) => runStep(runner, argv, out);

  const unavailable = async (): Promise<string | undefined> => {
    if (!existsSync(options.systemdRunDir))
      return `systemd is not running here (no ${options.systemdRunDir})`;
    const probe = await runner("systemctl", [...userFlag, "show-environment"]);
    if (probe.code !== 0)
      return `${shellLine(systemctl())} cannot reach the service manager (${firstLine(probe)})`;
    return undefined;
  };

  const requireRoot = (action: ServiceAction) => {
    if (scope === "system" && !options.isRoot)
      throw new ServiceError(
        `a system unit needs root: sudo env "PATH=$PATH" phonework service ${action} ${options.app} --system`,
      );
  };

  return {
    kind: `a systemd ${scope} unit`,
    name,
    file,
    render: renderSystemdUnit,
    annotate: annotateUnit,
    unavailable,
    manualSteps: (action) => [
      ...(action === "install" ? [shellLine(["mkdir", "-p", options.unitDir])] : []),
      ...commands[action].map(shellLine),
      ...(action === "install" && scope === "user"
        ? [`${shellLine(linger)}   # keeps it running while you are logged out`]
        : []),
    ],

    async install(text, out) {
      requireRoot("install");
      writeServiceFile(file, text);
      out.write(`wrote ${file}\n`);
      for (const argv of commands.install) {
        if (!(await run(argv, out))) {
          out.write(
            `not started: fix the above and install again, or \`phonework service uninstall ${options.app}\`\n`,
          );
          return 1;
        }
      }
      out.write(
        `installed: ${name} restarts ${RESTART_DELAY_S} s after any exit but a config error (exit ${CONFIG_ERROR_EXIT}); \`${shellLine(systemctl("stop", name))}\` stops it\n`,
      );
      out.write(`logs: ${shellLine(["journalctl", ...userFlag, "-u", name, "-f"])}\n`);
      if (scope === "user")
        out.write(`hint: \`${shellLine(linger)}\` keeps it running while you are logged out\n`);
      return 0;
    },

    async uninstall(out) {
      if (!existsSync(file)) {
        out.write(`not installed: there is no ${file}; nothing to do\n`);
        return 0;
      }
      requireRoot("uninstall");
      const why = await unavailable();
      let ok = true;
      if (why) out.write(`not stopped: ${why}\n`);
      else ok = await run(systemctl("disable", "--now", name), out);
      removeServiceFile(file);
      out.write(`removed ${file}\n`);
      if (!why) ok = (await run(systemctl("daemon-reload"), out)) && ok;
      out.write(`uninstalled: ${name}\n`);
      return ok ? 0 : 1;
    },

    async status(out) {
      if (!existsSync(file)) {
        out.write(`installed: no (no ${file})\n`);
        return 3;
      }
      out.write(`installed: ${file}\n`);
      writeCommandFacts(readExecStart(file), out);
      const why = await unavailable();
      if (why) {
        out.write(`active: unknown, ${why}\n`);
        return 3;
      }
      const enabled = await runner("systemctl", [...userFlag, "is-enabled", name]);
      out.write(`enabled: ${enabled.stdout.trim() || firstLine(enabled)}\n`);
      const active = await runner("systemctl", [...userFlag, "is-active", name]);
      const state = active.stdout.trim() || firstLine(active);
      out.write(`active: ${state}\n`);
      return state === "active" ? 0 : 3;
    },
  };
}

/** The ExecStart of an installed unit as argv, or why it cannot be read. */
function readExecStart(file: string): string[] | Error {
  try {
    const value = parseUnitFile(readFileSync(file, "utf8")).get("Service", "ExecStart");
    return value === undefined ? new Error("no ExecStart") : splitCommandLine(value);
  } catch (error) {
    return error as Error;
  }
}
