import type { ResponseParameters } from "grammy/types";

// The Bot API's error envelope: `{ ok: false, error_code, description, parameters? }`, with the HTTP
// status equal to error_code. Method handlers throw a BotApiError; the server turns it into the answer.

export class BotApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
  ) {
    super(description);
    this.name = "BotApiError";
  }
}

export const badRequest = (detail: string): BotApiError => new BotApiError(400, `Bad Request: ${detail}`);

export const unauthorized = (): BotApiError => new BotApiError(401, "Unauthorized");

export const notFound = (): BotApiError => new BotApiError(404, "Not Found");

export const conflict = (detail: string): BotApiError => new BotApiError(409, `Conflict: ${detail}`);

export const tooManyRequests = (retryAfter: number): BotApiError =>
  new BotApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });

export function errorBody(error: BotApiError): object {
  return {
    ok: false,
    error_code: error.status,
    description: error.description,
    ...(error.parameters ? { parameters: error.parameters } : {}),
  };
}

/** The descriptions the real API gives for the statuses a test scripts without saying more. */
export function defaultDescription(status: number): string {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden: bot was blocked by the user";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 502:
      return "Bad Gateway";
    default:
      return status >= 500 ? "Internal Server Error" : `Error ${status}`;
  }
}
