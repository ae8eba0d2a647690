import { join, resolve } from "node:path";
import { ConfigError, type ProgramArgs } from "@phonework/runtime";
import type { AppName } from "../programs/app-name.ts";
import type { CommandRunner } from "./command-runner.ts";
import { launchCommand } from "./launch-command.ts";
import { launchdBackend } from "./launchd-backend.ts";
import type { ServiceAction, ServiceBackend } from "./service-backend.ts";
import { ServiceError } from "./service-error.ts";
import { planService } from "./service-plan.ts";
import type { ServiceScope } from "./service-spec.ts";
import { serviceUser, type WhoAmI } from "./service-user.ts";
import { systemdBackend } from "./systemd-backend.ts";
import { windowsSteps } from "./windows-steps.ts";

// `phonework service install|uninstall|status <app>`: picks the service manager for this platform
// and does the action, or with --print (or where no manager can be used) prints the file and the
// steps to do it by hand. Exit codes: 0 done (or printed on request), 1 not done (failed, or only
// printed because this machine cannot install it), 2 a usage or config problem, 3 status: not
// running (as LSB init scripts report it).

export interface ServiceOptions {
  action: ServiceAction;
  app: AppName;
  /** The program's key flags as given (`--working-dir`, `--router-url`…), baked into the unit. */
  flags: readonly string[];
  /** The same settings as the program would load them (for the lines saying what it will run). */
  args: ProgramArgs;
  configPath: string | undefined;
  system: boolean;
  printOnly: boolean;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
}

/** This process and machine, as the command needs them; run-service.ts passes the real ones. */
export interface ServiceDeps {
  platform: NodeJS.Platform;
  execPath: string;
  entry: string | undefined;
  cwd: string;
  home: string;
  whoami: () => WhoAmI;
  runner: CommandRunner;
  /** Exists only when systemd is the init system: /run/systemd/system. */
  systemdRunDir: string;
  /** Where system units go: /etc/systemd/system. */
  systemUnitDir: string;
  /**
   * What the program will run with, as it would load its settings under the service (the file and
   * the flags; not this shell's environment): one line each. Throws ConfigError when it would not start.
   */
  settingsOf: (app: AppName, args: ProgramArgs) => Promise<string[]>;
}

export async function serviceCommand(options: ServiceOptions, deps: ServiceDeps): Promise<number> {
  try {
    if (deps.platform === "win32") return printWindowsSteps(options, deps);
    const backend = pickBackend(options, deps);
    if (options.action === "install") return await install(options, deps, backend);
    if (options.printOnly) {
      const verb = options.action === "uninstall" ? "remove" : "check";
      const steps = backend.manualSteps(options.action).map((step) => `  ${step}\n`);
      options.out.write(`To ${verb} ${backend.name} (${backend.kind}) by hand, run:\n${steps.join("")}`);
      return 0;
    }
    return options.action === "uninstall"
      ? await backend.uninstall(options.out)
      : await backend.status(options.out);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    options.out.write(`phonework service: ${error.message}\n`);
    return error.exitCode;
  }
}

function pickBackend(options: ServiceOptions, deps: ServiceDeps): ServiceBackend {
  const scope: ServiceScope = options.system ? "system" : "user";
  const whoami = deps.whoami();
  if (deps.platform === "darwin") {
    if (scope === "system")
      throw new ServiceError(
        "on macOS only a launchd agent for this user is supported: run it without --system",
        2,
      );
    return launchdBackend({ app: options.app, home: deps.home, uid: whoami.uid, runner: deps.runner });
  }
  const configHome = options.env.XDG_CONFIG_HOME || join(deps.home, ".config");
  return systemdBackend({
    app: options.app,
    scope,
    unitDir: scope === "system" ? deps.systemUnitDir : join(configHome, "systemd", "user"),
    systemdRunDir: deps.systemdRunDir,
    runner: deps.runner,
    userName: whoami.username,
    isRoot: whoami.uid === 0,
  });
}

async function install(options: ServiceOptions, deps: ServiceDeps, backend: ServiceBackend): Promise<number> {
  const { out } = options;
  const user = await serviceUser({
    forSystemUnit: options.system,
    env: options.env,
    whoami: deps.whoami(),
    home: deps.home,
    runner: deps.runner,
  });
  const { spec, notes } = planService({
    app: options.app,
    scope: options.system ? "system" : "user",
    configPath: options.configPath,
    flags: options.flags,
    env: options.env,
    execPath: deps.execPath,
    entry: deps.entry,
    cwd: deps.cwd,
    user,
  });
  const text = backend.render(spec);
  // Said in plain lines after the unit: what it runs, and with which folders and router.
  const runs = await whatItRuns(options, deps, spec.argv);
  const header = (first: string) => [
    first,
    ...notes.map((note) => `note: ${note}`),
    `To install ${backend.kind} by hand, save this (up to "It will run:") as ${backend.file}, then run:`,
    ...backend.manualSteps("install").map((step) => `  ${step}`),
  ];
  if (options.printOnly) {
    out.write(backend.annotate(text, header(`${backend.name}: printed only, nothing was changed.`)));
    out.write(runs.text);
    return 0;
  }
  // A unit that cannot start is not installed: it would only fail at every boot.
  if (runs.problem) throw new ServiceError(`not installed: ${runs.problem}`, 2);
  const why = await backend.unavailable();
  if (why) {
    out.write(backend.annotate(text, header(`not installed: ${why}.`)));
    out.write(runs.text);
    return 1;
  }
  for (const note of notes) out.write(`note: ${note}\n`);
  const code = await backend.install(text, out);
  out.write(runs.text);
  return code;
}

function printWindowsSteps(options: ServiceOptions, deps: ServiceDeps): number {
  const argv =
    options.action === "install"
      ? launchCommand({
          app: options.app,
          execPath: deps.execPath,
          entry: deps.entry,
          configPath: options.configPath ?? (options.env.PHONEWORK_CONFIG || undefined),
          cwd: deps.cwd,
        }).argv
      : undefined;
  options.out.write(windowsSteps(options.action, options.app, argv));
  return options.printOnly ? 0 : 1;
}

/**
 * "It will run: …" and one line per setting that says where it works, in plain lines after the
 * unit; and, when its settings fail to load, why it would stop at its first start.
 */
async function whatItRuns(
  options: ServiceOptions,
  deps: ServiceDeps,
  argv: readonly string[],
): Promise<{ text: string; problem?: string }> {
  // The file the unit names: --config, else this shell's PHONEWORK_CONFIG (baked in), from here.
  const file = options.configPath ?? (options.env.PHONEWORK_CONFIG || undefined);
  const configPath = file === undefined ? undefined : resolve(deps.cwd, file);
  const head = ["", `It will run: ${argv.join(" ")}`];
  try {
    const settings = await deps.settingsOf(options.app, { ...options.args, configPath });
    return { text: [...head, ...settings.map((line) => `  ${line}`), ""].join("\n") };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const problem = `it would stop at its first start: ${error.message}`;
    return { text: [...head, problem, ""].join("\n"), problem };
  }
}
