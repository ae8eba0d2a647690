import { RESTART_DELAY_S, type ServiceSpec } from "./service-spec.ts";

// The launchd agent for a service (~/Library/LaunchAgents/<label>.plist), and a reader for the
// program arguments of one we wrote.

/** Characters XML 1.0 cannot hold at all, escaped or not. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;

export function xmlText(value: string): string {
  if (NOT_XML.test(value)) throw new Error(`a plist cannot hold ${JSON.stringify(value)}`);
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const string = (value: string) => `<string>${xmlText(value)}</string>`;

/**
 * KeepAlive true (not {SuccessfulExit: false}): the host exits 0 when it is sent SIGTERM, so only
 * "always" brings a `kill`ed host back; `launchctl bootout` still stops it for good. launchd cannot
 * exempt one exit code the way systemd's RestartPreventExitStatus does, so a bad config is retried
 * every ThrottleInterval seconds, each failure in the log, and a fixed config is picked up unasked.
 */
export function renderLaunchdPlist(spec: ServiceSpec, options: { label: string; logFile: string }): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  ${string(options.label)}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...spec.argv.map((arg) => `    ${string(arg)}`),
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    "    <key>PATH</key>",
    `    ${string(spec.path)}`,
    "  </dict>",
    "  <key>WorkingDirectory</key>",
    `  ${string(spec.workingDirectory)}`,
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <true/>",
    "  <key>ThrottleInterval</key>",
    `  <integer>${RESTART_DELAY_S}</integer>`,
    "  <key>StandardOutPath</key>",
    `  ${string(options.logFile)}`,
    "  <key>StandardErrorPath</key>",
    `  ${string(options.logFile)}`,
    "</dict>",
    "</plist>",
  ];
  return `${lines.join("\n")}\n`;
}

/** The text with `lines` as an XML comment after the declaration: still a valid plist. */
export function annotatePlist(text: string, lines: readonly string[]): string {
  const newline = text.indexOf("\n");
  // `--` may not appear inside an XML comment.
  const comment = lines.map((line) => `  ${line.replaceAll("--", "- -")}`).join("\n");
  return `${text.slice(0, newline + 1)}<!--\n${comment}\n-->\n${text.slice(newline + 1)}`;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** ProgramArguments of a plist we wrote, or undefined when it has none. */
export function plistProgramArguments(text: string): string[] | undefined {
  const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text);
  if (!array) return undefined;
  return [...(array[1] as string).matchAll(/<string>([\s\S]*?)<\/string>/g)].map((match) =>
    (match[1] as string).replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (entity, name: string) => {
      if (name.startsWith("#x")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
      return ENTITIES[name] ?? entity;
    }),
  );
}
