import type { ProgramArgs } from "@phonework/runtime";
import type { Command } from "commander";

// The flags for the common config keys. Each sets the key of the same meaning in the one validated
// config, above the environment and the file (flag > environment > file > default).

const FLAGS = {
  dataDir: { flag: "--data-dir <dir>", key: "DATA_DIR", help: "where state, keys and logs live (DATA_DIR)" },
  workingDir: {
    flag: "--working-dir <dir>",
    key: "WORKING_DIR",
    help: "where shell commands and coding sessions start (WORKING_DIR)",
  },
  routerUrl: {
    flag: "--router-url <url>",
    key: "ROUTER_URL",
    help: "the router's wss://…/ws/node (ROUTER_URL)",
  },
  join: {
    flag: "--join <code>",
    key: "JOIN_CODE",
    help: "pair with the router using a join code (JOIN_CODE)",
  },
  nodeId: { flag: "--node-id <id>", key: "NODE_ID", help: "this host's node id (NODE_ID)" },
} as const;

export type ConfigFlag = keyof typeof FLAGS;

/** Adds `--config` and the given key flags to a command. */
export function withConfigFlags(command: Command, flags: readonly ConfigFlag[]): Command {
  command.option("--config <file>", "YAML config file (else PHONEWORK_CONFIG)");
  for (const name of flags) command.option(FLAGS[name].flag, FLAGS[name].help);
  return command;
}

/** `--save-config <file>`, for the programs a service runs. */
export function withSaveConfig(command: Command): Command {
  return command.option(
    "--save-config <file>",
    "write the settings given (flags, environment, config file) to this YAML file, then run: `phonework service install <app> --config <file>` runs exactly them",
  );
}

/** The key flags given, as the command line that gives them again (a service's ExecStart). */
export function flagArguments(options: Record<string, unknown>, flags: readonly ConfigFlag[]): string[] {
  return flags.flatMap((name) => {
    const value = options[name];
    return typeof value === "string" ? [FLAGS[name].flag.split(" ")[0] as string, value] : [];
  });
}

/** What a command's parsed options mean to the config loader. */
export function programArgs(options: Record<string, unknown>): ProgramArgs {
  const overrides: Record<string, string> = {};
  for (const [name, { key }] of Object.entries(FLAGS)) {
    const value = options[name];
    if (typeof value === "string") overrides[key] = value;
  }
  return {
    configPath: typeof options.config === "string" ? options.config : undefined,
    overrides,
    ...(typeof options.saveConfig === "string" ? { saveConfigPath: options.saveConfig } : {}),
  };
}
