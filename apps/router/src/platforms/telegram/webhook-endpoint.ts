import { type Logger, sameSecret } from "@phonework/runtime";
import type { WebhookEndpoint } from "../platform-adapter.ts";
import { describeError } from "./telegram-error.ts";
import type { UpdateHandler } from "./update-handler.ts";

// Telegram's webhook. Telegram signs nothing; it sends back the secret_token given to setWebhook in
// a header, compared here in constant time. The answer is the acknowledgement: 200 only once the
// update is stored, anything else and Telegram delivers it again (500 when it could not be stored,
// 503 while the adapter is not receiving).

/** Telegram allows 1–256 of these characters in a secret_token. */
export const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

const SECRET_HEADER = "x-telegram-bot-api-secret-token";

export interface TelegramWebhookOptions {
  path: string;
  secret: string;
  /** The handler while the adapter receives; undefined before start and after stop. */
  handler(): UpdateHandler | undefined;
  logger: Logger;
}

/** The header's one value; a repeated header is not Telegram's. */
function secretHeader(headers: Record<string, string | string[] | undefined>): string | undefined {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === SECRET_HEADER);
  const value = name === undefined ? undefined : headers[name];
  return typeof value === "string" ? value : undefined;
}

export function createTelegramWebhook(options: TelegramWebhookOptions): WebhookEndpoint {
  const { logger } = options;
  return {
    path: options.path,
    async handle(request) {
      if (!sameSecret(secretHeader(request.headers), options.secret)) {
        logger.warn({ path: options.path }, "Telegram webhook refused: missing or wrong secret token");
        return { status: 401, body: { error: "unauthorized" } };
      }
      const handle = options.handler();
      if (!handle) return { status: 503, body: { error: "not receiving updates" } };
      let update: unknown;
      try {
        update = JSON.parse(request.rawBody);
      } catch {
        logger.warn({ path: options.path }, "Telegram webhook refused: body is not JSON");
        return { status: 400, body: { error: "malformed JSON" } };
      }
      try {
        await handle(update);
        return { status: 200, body: {} };
      } catch (error) {
        logger.warn(
          { error: describeError(error) },
          "Telegram update not stored; answered 500 so it comes again",
        );
        return { status: 500, body: { error: "not stored" } };
      }
    },
  };
}
