import { ConfigError, type ConfigSource, type LoadedConfig } from "@phonework/runtime";
import type { CheckPrinter } from "./check-printer.ts";
import { type Check, skipped, warn } from "./checks/check.ts";
import { checkConfig } from "./checks/config.ts";
import { checkDataDir } from "./checks/data-dir.ts";

// The start of every doctor run after the Node version: DATA_DIR (resolved on its own, so it is
// checked even when another key is wrong) and the config. Returns the config when it is valid.

export interface ConfigLoaders<T> {
  /** DATA_DIR as the program resolves it (flag > environment > file > default). */
  dataDir: () => string;
  config: () => LoadedConfig<T>;
}

export function checkDataDirAndConfig<T extends object>(
  loaders: ConfigLoaders<T>,
  printer: CheckPrinter,
): T | undefined {
  printer.print(dataDirCheck(loaders.dataDir));
  const { config, checks } = checkConfig(loaders.config);
  if (config) printer.addSecrets(config);
  printer.print(checks);
  return config;
}

function dataDirCheck(dataDir: () => string): Check {
  try {
    return checkDataDir(dataDir());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return skipped("DATA_DIR", "the config cannot be read");
  }
}

/** The source for a schema of DATA_DIR alone: it would refuse the other keys' flags. */
export const dataDirSource = (source: ConfigSource): ConfigSource => ({
  ...source,
  overrides: { DATA_DIR: source.overrides?.DATA_DIR },
});

/** One line for every check an invalid config keeps from running. */
export const skippedForConfig = (titles: readonly string[]): Check =>
  warn("other checks", `skipped until the config is valid: ${titles.join(", ")}`);
