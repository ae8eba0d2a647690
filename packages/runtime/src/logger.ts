import pino, { type Level, type Logger } from "pino";
import { type LineSink, type LogFormat, logDestination } from "./log-format.ts";
import { REDACTED, type SecretValues } from "./secret-values.ts";
import { uniqueKeys } from "./unique-keys.ts";

export type { Level, Logger };

// Two layers: key paths hide secrets where they sit in a log object under a known name; `secrets`
// (by value, on the final serialized line) catches them anywhere else, e.g. inside an error message
// an SDK flattened to a string.

// Keys that hold secrets anywhere they appear in a log object.
const SECRET_KEYS = [
  "ROUTER_SECRET",
  "OPENAI_API_KEY",
  "ROUTER_LLM_API_KEY",
  "METASO_API_KEY",
  "ANTHROPIC_API_KEY",
  "FEISHU_APP_SECRET",
  "FEISHU_ENCRYPT_KEY",
  "FEISHU_VERIFICATION_TOKEN",
  "ADMIN_TOKEN",
  "JOIN_CODE",
  "app_secret",
  "tenant_access_token",
  "app_access_token",
  "authorization",
  "secret",
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  "req.headers.authorization",
  "headers.authorization",
];

/** One destination of several, with the least level it takes (pino's multistream entry). */
export interface LogStream {
  level: Level;
  stream: LineSink;
}

export interface LoggerOptions {
  level: string;
  name?: string;
  /** File descriptor or stream to write to; stderr by default so stdout stays free for the terminal chat. */
  destination?: number | NodeJS.WritableStream;
  /** How `destination`'s lines look; `auto` (the default) is pretty on a terminal, JSON elsewhere. */
  format?: LogFormat;
  /** Several destinations instead of `destination`, each already in its format (see logDestination). */
  streams?: readonly LogStream[];
  /** Secret values cut out of every line, at every level; add run-time secrets to it as they are minted. */
  secrets?: SecretValues;
}

export function createLogger(options: LoggerOptions): Logger {
  const { secrets } = options;
  const keys = uniqueKeys();
  const destination = options.streams
    ? pino.multistream([...options.streams])
    : logDestination(options.destination ?? 2, options.format ?? "auto");
  return pino(
    {
      level: options.level,
      ...(options.name ? { name: options.name } : {}),
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      onChild: keys.onChild,
      mixin: keys.mixin,
      // The mixin only looks; the call's own fields object is logged as it is, not copied.
      mixinMergeStrategy: (fields) => fields,
      hooks: {
        // streamWrite sees the finished line (message, serialized err with its stack, every field),
        // so nothing that reaches any destination (stderr, pretty text, the log file) escapes it;
        // child loggers inherit it.
        streamWrite: (line: string) => {
          const once = keys.line(line);
          return secrets ? secrets.redact(once) : once;
        },
      },
    },
    destination,
  );
}
