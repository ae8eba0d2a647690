import type { Logger } from "@phonework/runtime";

// SIGHUP: raise or lower LOG_LEVEL without a restart, which would cut in-flight replies and make
// every host reconnect. Only the level is applied; every other key still needs a restart.

/**
 * Loads the config again (`load` reads the same file and environment as at start) and sets the
 * logger's level; child loggers follow, as they never set their own. A config that no longer
 * validates is reported and changes nothing: a typo must not take the router down.
 */
export function reloadLogLevel(load: () => { LOG_LEVEL: string }, logger: Logger): void {
  let level: string;
  try {
    level = load().LOG_LEVEL;
  } catch (error) {
    logger.warn(
      { problem: error instanceof Error ? error.message : String(error), logLevel: logger.level },
      "SIGHUP: config not reloaded; the log level stays as it was",
    );
    return;
  }
  const previous = logger.level;
  const announce = () => logger.info({ from: previous, to: level }, `SIGHUP: log level now ${level}`);
  // Said under whichever of the two levels lets an info line through (from warn to debug, the new
  // one; from info to warn, the old one). Between two quieter levels it is dropped, as asked.
  const heardBefore = logger.isLevelEnabled("info");
  if (heardBefore) announce();
  logger.level = level;
  if (!heardBefore) announce();
}
