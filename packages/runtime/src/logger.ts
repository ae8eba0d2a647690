import pino, { type Logger } from "pino";

export type { Logger };

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
}

export function createLogger(options: LoggerOptions): Logger {
  const destination =
    typeof options.destination === "object"
      ? options.destination
      : pino.destination({ dest: options.destination ?? 2, sync: true });
  return pino(
    {
      level: options.level,
      ...(options.name ? { name: options.name } : {}),
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    },
    destination,
  );
}
