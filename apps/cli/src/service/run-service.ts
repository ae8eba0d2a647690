import { homedir, userInfo } from "node:os";
import type { AppName } from "../cli.ts";
import { processRunner } from "./command-runner.ts";
import { serviceCommand } from "./service-command.ts";

// The composition root of `phonework service`: this process, this machine, the real systemctl and
// launchctl. The command itself is in service-command.ts.

export async function runService(options: {
  action: "install" | "uninstall" | "status";
  app: AppName;
  configPath: string | undefined;
  system: boolean;
  printOnly: boolean;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
}): Promise<number> {
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
  });
}
