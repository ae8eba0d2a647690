import { createRequire } from "node:module";
import { resolve } from "node:path";
import { writePrivateFile } from "./private-files.ts";

// `--save-config <file>`: the settings a program was started with (its flags, the environment's
// keys it knows, its config file), written as the YAML config file it reads, so `phonework service
// install <app> --config <file>` runs exactly what the user just ran. Defaults are left out (a
// newer version's defaults apply); so is JOIN_CODE, which pairs once and is spent. Mode 0600: API
// keys may be among them.

/** Keys never saved: a join code is used once, at the first start. */
const NOT_SAVED = new Set(["JOIN_CODE"]);

export function saveConfigFile(
  path: string,
  given: Readonly<Record<string, unknown>>,
  program: string,
): { path: string; keys: string[] } {
  const absolute = resolve(path);
  const settings = Object.fromEntries(
    Object.entries(given)
      .filter(([key, value]) => !NOT_SAVED.has(key) && value !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const yaml = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  const header =
    `# Settings ${program} was started with (flags, environment, config file), saved by --save-config.\n` +
    "# Defaults are not listed; JOIN_CODE is not kept (it pairs once). Edit freely: flag > environment > this file.\n";
  writePrivateFile(
    absolute,
    `${header}${Object.keys(settings).length > 0 ? yaml.stringify(settings) : "{}\n"}`,
  );
  return { path: absolute, keys: Object.keys(settings) };
}
