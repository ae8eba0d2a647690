import type { z } from "zod";
import { saveConfigFile } from "./config-file.ts";
import { loadConfig } from "./config-loader.ts";
import type { LogFormat } from "./log-format.ts";
import type { Level } from "./logger.ts";
import { openProgramLog, type ProgramLog } from "./program-log.ts";
import { addConfigSecrets, SecretValues } from "./secret-values.ts";

/** Where the log goes; see openLog. */
export interface LogPlacement {
  /** The terminal is the chat: the whole log goes to DATA_DIR/logs/<name>.log. */
  toFile: boolean;
  /** With `toFile`, the least level stderr still gets: warn by default. */
  stderrLevel?: Level;
}

export interface Program<C> {
  config: C;
  /**
   * Already holds every secret-named config value (…_SECRET, …_KEY, …_TOKEN, …_PASSWORD,
   * JOIN_CODE); add secrets minted at run time to it and no log line will show them.
   */
  secrets: SecretValues;
  /**
   * Creates the one logger that is passed down. Called once DATA_DIR is this program's (checked
   * and locked): the log file lives there, and a second program refused the lock must not write
   * to it.
   */
  openLog(placement: LogPlacement): Promise<ProgramLog>;
}

/** What the command line gave a program: its config file and the keys its flags set. */
export interface ProgramArgs {
  configPath?: string | undefined;
  overrides?: Readonly<Record<string, string | undefined>>;
  /** `--save-config <file>`: the settings given are written there (for `phonework service install`). */
  saveConfigPath?: string | undefined;
}

/**
 * The start of every entry point: load and validate the config from the command line, the
 * environment and the file. Throws ConfigError (see exitOnError) on bad config. Nothing is logged
 * until openLog.
 */
export function startProgram<
  S extends z.ZodType<{ LOG_LEVEL: string; LOG_FORMAT: LogFormat; DATA_DIR: string }>,
>(schema: S, name: string, args: ProgramArgs = {}): Program<z.output<S>> {
  const { config, path, unknownKeys, given } = loadConfig(schema, { ...args, env: process.env });
  const saved = args.saveConfigPath ? saveConfigFile(args.saveConfigPath, given, name) : undefined;
  const secrets = new SecretValues();
  addConfigSecrets(secrets, config as Record<string, unknown>);
  const openLog = async ({ toFile, stderrLevel }: LogPlacement): Promise<ProgramLog> => {
    const log = await openProgramLog({
      name,
      level: config.LOG_LEVEL,
      format: config.LOG_FORMAT,
      secrets,
      ...(toFile ? { file: { dataDir: config.DATA_DIR, ...(stderrLevel ? { stderrLevel } : {}) } } : {}),
    });
    if (unknownKeys.length > 0)
      log.logger.warn({ keys: unknownKeys, path }, "config file has keys this program does not use");
    if (saved)
      log.logger.info(
        { path: saved.path, keys: saved.keys },
        `settings saved to ${saved.path}; a service runs exactly these with --config ${saved.path}`,
      );
    return log;
  };
  return { config, secrets, openLog };
}
