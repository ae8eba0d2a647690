import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";

// One YAML file, environment variables of the same names, and command-line flags, validated by a
// zod schema. Precedence: flag > environment > file > the schema's default. Any problem becomes a
// ConfigError that names the key.

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export interface ConfigSource {
  env: Readonly<Record<string, string | undefined>>;
  /** The YAML file (`--config`); without it, PHONEWORK_CONFIG; without both, none. */
  configPath?: string | undefined;
  readFile?: (path: string) => string;
  /** Keys set by command-line flags (`--join <code>` → JOIN_CODE); they win over everything. */
  overrides?: Readonly<Record<string, string | undefined>>;
}

export interface LoadedConfig<T> {
  config: T;
  /** Where the file came from, if any. */
  path: string | undefined;
  /** Keys in the file that this program does not know (likely typos, or another program's keys). */
  unknownKeys: string[];
  /** Every key a flag, the environment or the file gave, as given (defaults not included). */
  given: Record<string, unknown>;
}

/** The value of `--name value` or `--name=value` in argv, if given. */
export function flagValue(argv: readonly string[], name: string, what = "a value"): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === name) {
      const value = argv[i + 1];
      if (!value || value.startsWith("--")) throw new ConfigError(`${name} needs ${what}`);
      return value;
    }
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}

export function configPathFrom(source: ConfigSource): string | undefined {
  return source.configPath || source.env.PHONEWORK_CONFIG || undefined;
}

function readConfigFile(path: string, readFile: (path: string) => string): Record<string, unknown> {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = yaml().parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new ConfigError(`config file ${path} must be a mapping of KEY: value`);
  }
  return data as Record<string, unknown>;
}

/**
 * The YAML parser, loaded when there is a file to read: a program configured by its environment
 * alone (a container, a service unit) never loads it. Synchronous, as loading the config is.
 */
function yaml(): typeof import("yaml") {
  return createRequire(import.meta.url)("yaml") as typeof import("yaml");
}

/** The keys of an object schema, also when it is wrapped in a transform. */
function schemaKeys(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return schemaKeys(schema.in as z.ZodType);
  throw new Error("config schema must be an object schema");
}

export function loadConfig<S extends z.ZodType>(schema: S, source: ConfigSource): LoadedConfig<z.output<S>> {
  const path = configPathFrom(source);
  const fromFile = path ? readConfigFile(path, source.readFile ?? ((p) => readFileSync(p, "utf8"))) : {};
  const keys = schemaKeys(schema);
  const merged: Record<string, unknown> = {};
  for (const key of keys) {
    const envValue = source.env[key];
    if (envValue !== undefined && envValue !== "") merged[key] = envValue;
    else if (key in fromFile) merged[key] = fromFile[key];
  }
  for (const [key, value] of Object.entries(source.overrides ?? {})) {
    if (value === undefined) continue;
    if (!keys.includes(key)) throw new Error(`flag for ${key}, which this program does not have`);
    merged[key] = value;
  }
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join(".") || "(config)";
      return `  ${key}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const unknownKeys = Object.keys(fromFile).filter((key) => !keys.includes(key));
  return { config: parsed.data, path, unknownKeys, given: merged };
}
