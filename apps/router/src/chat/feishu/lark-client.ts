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

/** The SDK logs through this, into our one pino logger. */
export function larkLogger(logger: Logger) {
  const log =
    (level: "error" | "warn" | "info" | "debug" | "trace") =>
    (...parts: unknown[]) =>
      logger[level](
        { sdk: "lark" },
        parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" "),
      );
  return {
    error: log("error"),
    warn: log("warn"),
    info: log("info"),
    debug: log("debug"),
    trace: log("trace"),
  };
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
