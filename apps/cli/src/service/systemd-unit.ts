import {
  CONFIG_ERROR_EXIT,
  RESTART_DELAY_S,
  SERVICE_DESCRIPTIONS,
  type ServiceSpec,
} from "./service-spec.ts";
import { environmentAssignment, execCommandLine, unitPath } from "./systemd-quote.ts";

// The systemd unit for a service, and a reader for the units we write.

/**
 * Restart=always, not on-failure: the host stops cleanly (exit 0) on SIGTERM, so a plain `kill`
 * looks like a clean exit, and on-failure would leave it down; `systemctl stop` still stops it for
 * good. A configuration error (exit 2) is excluded, or a bad config would loop every few seconds.
 */
export function renderSystemdUnit(spec: ServiceSpec): string {
  const description = SERVICE_DESCRIPTIONS[spec.app];
  const system = spec.scope === "system";
  const flag = system ? " --system" : "";
  const lines = [
    `# Written by \`phonework service install ${spec.app}${flag}\`; \`phonework service uninstall ${spec.app}${flag}\` removes it.`,
    "[Unit]",
    `Description=${description}`,
    // A user manager has no network-online.target; a system one does, and a router needs its port.
    ...(system ? ["Wants=network-online.target", "After=network-online.target"] : []),
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${execCommandLine(spec.argv)}`,
    `Environment=${environmentAssignment("PATH", spec.path)}`,
    `WorkingDirectory=${unitPath(spec.workingDirectory)}`,
    ...(spec.runAs ? [`User=${spec.runAs.user}`, `Group=${spec.runAs.group}`] : []),
    "Restart=always",
    `RestartSec=${RESTART_DELAY_S}`,
    `RestartPreventExitStatus=${CONFIG_ERROR_EXIT}`,
    "",
    "[Install]",
    // default.target is what a user manager (lingering or logged in) starts.
    `WantedBy=${system ? "multi-user.target" : "default.target"}`,
  ];
  return `${lines.join("\n")}\n`;
}

export interface UnitFile {
  /** The last value of `key` in `[section]` (later assignments override earlier ones). */
  get(section: string, key: string): string | undefined;
}

/** Sections and `Key=Value` lines; comments and blank lines skipped. Enough for the units we write. */
export function parseUnitFile(text: string): UnitFile {
  const values = new Map<string, string>();
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      continue;
    }
    const equals = line.indexOf("=");
    if (equals <= 0) continue;
    values.set(`${section}\n${line.slice(0, equals).trim()}`, line.slice(equals + 1).trim());
  }
  return { get: (sectionName, key) => values.get(`${sectionName}\n${key}`) };
}

/** The text with `lines` as comments at the top: still a valid unit file. */
export function annotateUnit(text: string, lines: readonly string[]): string {
  return `${lines.map((line) => `# ${line}`.trimEnd()).join("\n")}\n${text}`;
}
