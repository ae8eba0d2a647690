import type { z } from "zod";
import { loadConfig } from "./config-loader.ts";
import { createLogger, type Logger } from "./logger.ts";

/**
 * The start of every entry point: load and validate the config from argv and the environment,
 * then create the one logger that is passed down. Throws ConfigError (see runMain) on bad config.
 */
export function startProgram<S extends z.ZodType<{ LOG_LEVEL: string }>>(
  schema: S,
  name: string,
): { config: z.output<S>; logger: Logger } {
  const { config, path, unknownKeys } = loadConfig(schema, { argv: process.argv.slice(2), env: process.env });
  const logger = createLogger({ level: config.LOG_LEVEL, name });
  if (unknownKeys.length > 0)
    logger.warn({ keys: unknownKeys, path }, "config file has keys this program does not use");
  return { config, logger };
}
