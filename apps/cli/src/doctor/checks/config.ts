import { ConfigError, type LoadedConfig } from "@phonework/runtime";
import { type Check, fail, ok, oneLine, warn } from "./check.ts";

// The config as the program would load it (flags, environment, --config file, defaults). Invalid:
// one ❌ naming the key(s), and the checks that need it are skipped.

export function checkConfig<T>(load: () => LoadedConfig<T>): { config: T | undefined; checks: Check[] } {
  try {
    const { config, path, unknownKeys } = load();
    const from = path ? `${path}, the environment and flags` : "the environment and flags; no config file";
    const checks = [ok("config", `valid (${from})`)];
    if (unknownKeys.length > 0)
      checks.push(
        warn(
          "config file",
          `${path} has keys this program does not use: ${unknownKeys.join(", ")}`,
          "check their spelling, or remove them",
        ),
      );
    return { config, checks };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      config: undefined,
      checks: [
        fail(
          "config",
          oneLine(error.message),
          "fix the key named here (its flag, environment variable or config file entry)",
        ),
      ],
    };
  }
}
