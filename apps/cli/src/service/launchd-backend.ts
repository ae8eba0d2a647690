import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppName } from "../programs/app-name.ts";
import { type CommandRunner, firstLine } from "./command-runner.ts";
import { annotatePlist, plistProgramArguments, renderLaunchdPlist } from "./launchd-plist.ts";
import {
  runStep,
  type ServiceAction,
  type ServiceBackend,
  shellLine,
  writeCommandFacts,
} from "./service-backend.ts";
import { launchdLabel } from "./service-spec.ts";
import { removeServiceFile, writeServiceFile } from "./write-service-file.ts";

// A launchd agent: ~/Library/LaunchAgents/com.phonework.<app>.plist, loaded into the user's GUI
// domain with `launchctl bootstrap`. Its output goes to ~/Library/Logs/phonework/<app>.log.

export interface LaunchdBackendOptions {
  app: AppName;
  home: string;
  uid: number;
  runner: CommandRunner;
}

export function launchdBackend(options: LaunchdBackendOptions): ServiceBackend {
  const { runner } = options;
  const label = launchdLabel(options.app);
  const file = join(options.home, "Library", "LaunchAgents", `${label}.plist`);
  const logDir = join(options.home, "Library", "Logs", "phonework");
  const logFile = join(logDir, `${options.app}.log`);
  const domain = `gui/${options.uid}`;
  const target = `${domain}/${label}`;
  const commands: Record<ServiceAction, string[][]> = {
    // enable: a label once `launchctl disable`d would not load otherwise.
    install: [
      ["launchctl", "enable", target],
      ["launchctl", "bootstrap", domain, file],
    ],
    uninstall: [
      ["launchctl", "bootout", target],
      ["rm", "-f", file],
    ],
    status: [["launchctl", "print", target]],
  };

  const run = (argv: string[], out: NodeJS.WritableStream) => runStep(runner, argv, out);

  /** Loaded in the GUI domain, and its state line; undefined when not loaded. */
  const loaded = async (): Promise<string | undefined> => {
    const result = await runner("launchctl", ["print", target]);
    if (result.code !== 0) return undefined;
    const state = /^\s*state = (.+)$/m.exec(result.stdout)?.[1] ?? "loaded";
    const pid = /^\s*pid = (\d+)$/m.exec(result.stdout)?.[1];
    return pid ? `${state} (pid ${pid})` : state;
  };

  return {
    kind: "a launchd agent",
    name: label,
    file,
    render: (spec) => renderLaunchdPlist(spec, { label, logFile }),
    annotate: annotatePlist,
    manualSteps: (action) => [
      ...(action === "install" ? [shellLine(["mkdir", "-p", logDir])] : []),
      ...commands[action].map(shellLine),
    ],

    // Over ssh without a login at the Mac's screen there is no GUI domain to bootstrap into.
    async unavailable() {
      const probe = await runner("launchctl", ["print", domain]);
      return probe.code === 0
        ? undefined
        : `launchctl has no ${domain} domain (${firstLine(probe)}): log in at the Mac`;
    },

    async install(text, out) {
      writeServiceFile(file, text);
      mkdirSync(logDir, { recursive: true });
      out.write(`wrote ${file}\n`);
      // bootstrap refuses a label that is loaded, and a reinstall must take effect. Quietly: this
      // fails when it was not loaded, which is fine.
      await runner("launchctl", ["bootout", target]);
      for (const argv of commands.install) {
        if (!(await run(argv, out))) {
          out.write(
            `not started: fix the above and install again, or \`phonework service uninstall ${options.app}\`\n`,
          );
          return 1;
        }
      }
      out.write(
        `installed: ${label} starts at login and again whenever it exits; \`launchctl bootout ${target}\` stops it\n`,
      );
      out.write(`logs: ${logFile}\n`);
      return 0;
    },

    async uninstall(out) {
      if (!existsSync(file)) {
        out.write(`not installed: there is no ${file}; nothing to do\n`);
        return 0;
      }
      let ok = true;
      if ((await loaded()) === undefined) out.write(`not loaded: ${label}\n`);
      else ok = await run(["launchctl", "bootout", target], out);
      removeServiceFile(file);
      out.write(`removed ${file}\n`);
      out.write(`uninstalled: ${label}\n`);
      return ok ? 0 : 1;
    },

    async status(out) {
      if (!existsSync(file)) {
        out.write(`installed: no (no ${file})\n`);
        return 3;
      }
      out.write(`installed: ${file}\n`);
      let argv: string[] | Error | undefined;
      try {
        argv = plistProgramArguments(readFileSync(file, "utf8"));
      } catch (error) {
        argv = error as Error;
      }
      writeCommandFacts(argv, out);
      const state = await loaded();
      out.write(`active: ${state ?? "not loaded"}\n`);
      return state?.startsWith("running") ? 0 : 3;
    },
  };
}
