import * as lark from "@larksuiteoapi/node-sdk";
import type { Logger } from "@phonework/runtime";

// The SDK's client for Feishu's Open API. FEISHU_DOMAIN is "feishu", "lark", or a base URL
// (a proxy in production, the fake server in tests). Each client gets its own token cache:
// the SDK's default cache is process-wide.

export function larkDomain(domain: string): string | lark.Domain {
  if (domain === "feishu") return lark.Domain.Feishu;
  if (domain === "lark") return lark.Domain.Lark;
  return domain.replace(/\/+$/, "");
}

/** The SDK logs through this, into our one pino logger, as what sdkLogEntry keeps of its words. */
export function larkLogger(logger: Logger) {
  const log =
    (level: "error" | "warn" | "info" | "debug" | "trace") =>
    (...parts: unknown[]) => {
      const { text, fields } = sdkLogEntry(parts);
      logger[level]({ sdk: "lark", ...fields }, text || "Feishu API call failed");
    };
  return {
    error: log("error"),
    warn: log("warn"),
    info: log("info"),
    debug: log("debug"),
    trace: log("trace"),
  };
}

/** What the log keeps of a failed call: where it went, the HTTP status, and Feishu's code, msg and log_id. */
export interface SdkFailureFields {
  api?: string;
  status?: number;
  code?: number;
  err?: string;
  logId?: string;
}

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;
const numberOf = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;
const stringOf = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

function failureFields(value: Fields): SdkFailureFields {
  const response = fieldsOf(value.response);
  // An AxiosError (or the SDK's digest of one) carries Feishu's answer as response.data; the SDK
  // also logs that answer on its own, flattened.
  const answer = fieldsOf(response?.data) ?? value;
  const config = fieldsOf(value.config);
  const method = stringOf(config?.method)?.toUpperCase();
  const url = stringOf(config?.url);
  return {
    // The path only: the origin is FEISHU_DOMAIN, and the query is not needed to tell calls apart.
    api: method && url ? `${method} ${url.replace(/^[a-z]+:\/\/[^/]+/i, "").split("?")[0]}` : undefined,
    status: numberOf(response?.status),
    code: numberOf(answer.code),
    err: stringOf(answer.msg) ?? stringOf(value.message),
    logId:
      stringOf(fieldsOf(answer.error)?.log_id) ??
      stringOf(answer.log_id) ??
      stringOf(fieldsOf(response?.headers)?.["x-tt-logid"]),
  };
}

/**
 * What of an SDK log call reaches our log. The SDK logs a failed call with its whole request
 * (`config.data`: the message's text, a card of command output) and Feishu's whole answer; only its
 * own words and, of a failure, the fields above are kept. Nothing else it passes is logged.
 */
export function sdkLogEntry(parts: readonly unknown[]): { text: string; fields: SdkFailureFields } {
  const words: string[] = [];
  const fields: SdkFailureFields = {};
  const take = (part: unknown): void => {
    if (Array.isArray(part)) {
      for (const inner of part) take(inner);
      return;
    }
    if (typeof part === "string") words.push(part);
    else if (typeof part === "number" || typeof part === "boolean") words.push(String(part));
    const failure = fieldsOf(part);
    if (!failure) return;
    for (const [key, value] of Object.entries(failureFields(failure)))
      if (value !== undefined) (fields as Fields)[key] ??= value;
  };
  for (const part of parts) take(part);
  return { text: words.join(" "), fields };
}

export interface LarkOptions {
  appId: string;
  appSecret: string;
  domain: string;
  logger: Logger;
}

export function createLarkClient(options: LarkOptions): lark.Client {
  return new lark.Client({
    appId: options.appId,
    appSecret: options.appSecret,
    domain: larkDomain(options.domain),
    cache: new lark.DefaultCache(),
    logger: larkLogger(options.logger),
    loggerLevel: lark.LoggerLevel.warn,
  });
}
