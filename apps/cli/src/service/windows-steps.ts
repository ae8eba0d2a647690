import type { AppName } from "../programs/app-name.ts";
import type { ServiceAction } from "./service-backend.ts";
import { CONFIG_ERROR_EXIT, RESTART_DELAY_S } from "./service-spec.ts";

// Windows has no installer here: the steps to do it by hand with NSSM, the same policy as the
// systemd unit (restart after any exit but a config error).

const cmdWord = (word: string) => (/^[A-Za-z0-9_@%+=:,./\\-]+$/.test(word) ? word : `"${word}"`);

export function windowsSteps(
  action: ServiceAction,
  app: AppName,
  argv: readonly string[] | undefined,
): string {
  const name = `phonework-${app}`;
  const lines: Record<ServiceAction, string[]> = {
    install: [
      `phonework cannot install a Windows service itself. To run \`phonework ${app}\` as one with NSSM (https://nssm.cc),`,
      "in an administrator prompt:",
      `  nssm install ${name} ${(argv ?? []).map(cmdWord).join(" ")}`,
      `  nssm set ${name} AppDirectory "%USERPROFILE%"`,
      `  nssm set ${name} AppExit Default Restart`,
      `  nssm set ${name} AppExit ${CONFIG_ERROR_EXIT} Exit`,
      `  nssm set ${name} AppRestartDelay ${RESTART_DELAY_S * 1000}`,
      `  nssm start ${name}`,
      'Or a Task Scheduler task started "At log on" with that command line, set to restart when it fails.',
    ],
    uninstall: [
      "phonework cannot manage Windows services itself. If you installed it with NSSM:",
      `  nssm stop ${name}`,
      `  nssm remove ${name} confirm`,
    ],
    status: [
      "phonework cannot manage Windows services itself. If you installed it with NSSM:",
      `  nssm status ${name}`,
    ],
  };
  return `${lines[action].join("\n")}\n`;
}
