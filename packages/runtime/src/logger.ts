import pino, { type Logger } from "pino";
import { REDACTED, type SecretValues } from "./secret-values.ts";

export type { Logger };

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

export interface LoggerOptions {
  level: string;
  name?: string;
  /** File descriptor or stream to write to; stderr by default so stdout stays free for the terminal chat. */
  destination?: number | NodeJS.WritableStream;
  /** Secret values cut out of every line, at every level; add run-time secrets to it as they are minted. */
  secrets?: SecretValues;
}

export function createLogger(options: LoggerOptions): Logger {
  const { secrets } = options;
  const destination =
    typeof options.destination === "object"
      ? options.destination
      : pino.destination({ dest: options.destination ?? 2, sync: true });
  return pino(
    {
      level: options.level,
      ...(options.name ? { name: options.name } : {}),
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // streamWrite sees the finished line (message, serialized err with its stack, every field),
      // so nothing that reaches the destination escapes it; child loggers inherit it.
      ...(secrets ? { hooks: { streamWrite: (line: string) => secrets.redact(line) } } : {}),
    },
    destination,
  );
}
