import type { z } from "zod";
import { loadConfig } from "./config-loader.ts";
import { createLogger, type Logger } from "./logger.ts";
import { addConfigSecrets, SecretValues } from "./secret-values.ts";

/**
 * The start of every entry point: load and validate the config from argv and the environment,
 * then create the one logger that is passed down. Throws ConfigError (see runMain) on bad config.
 * `secrets` already holds every secret-named config value (…_SECRET, …_KEY, …_TOKEN, …_PASSWORD,
 * JOIN_CODE); add secrets minted at run time to it and no log line will show them.
 */
export function startProgram<S extends z.ZodType<{ LOG_LEVEL: string }>>(
  schema: S,
  name: string,
  options: { flags?: Record<string, string> } = {},
): { config: z.output<S>; logger: Logger; secrets: SecretValues } {
  const { config, path, unknownKeys } = loadConfig(schema, {
    argv: process.argv.slice(2),
    env: process.env,
    ...(options.flags ? { flags: options.flags } : {}),
  });
  const secrets = new SecretValues();
  addConfigSecrets(secrets, config as Record<string, unknown>);
  const logger = createLogger({ level: config.LOG_LEVEL, name, secrets });
  if (unknownKeys.length > 0)
    logger.warn({ keys: unknownKeys, path }, "config file has keys this program does not use");
  return { config, logger, secrets };
}
