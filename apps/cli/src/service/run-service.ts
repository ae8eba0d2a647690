import { homedir, userInfo } from "node:os";
import { processRunner } from "./command-runner.ts";
import { type ServiceOptions, serviceCommand } from "./service-command.ts";
import { settingsOf } from "./service-settings.ts";

// The composition root of `phonework service`: this process, this machine, the real systemctl and
// launchctl. The command itself is in service-command.ts.

export async function runService(options: ServiceOptions): Promise<number> {
  return serviceCommand(options, {
    platform: process.platform,
    execPath: process.execPath,
    entry: process.argv[1],
    cwd: process.cwd(),
    home: options.env.HOME || homedir(),
    whoami: () => userInfo(),
    runner: processRunner(options.env),
    systemdRunDir: "/run/systemd/system",
    systemUnitDir: "/etc/systemd/system",
    settingsOf,
  });
}
