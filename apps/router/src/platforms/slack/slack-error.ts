import { ErrorCode, type WebAPICallError } from "@slack/web-api";
import { PlatformError } from "../platform-adapter.ts";

// What the Web API client throws, as the PlatformError the shared send queue decides on: a 429 is
// rate_limited with Slack's Retry-After, network trouble and 5xx are transient, Slack's own error
// codes are permanent unless they say Slack itself is struggling. Messages name the method and
// Slack's code, never a token (the SDK keeps tokens in headers, never in URLs or messages).

/** Slack's `error` codes that a later try can succeed with. */
const TRANSIENT_CODES = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "ratelimited",
  "team_added_to_org",
]);

/** When a 429 comes without a usable Retry-After (Slack always sends one), wait this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

type SlackCallError = WebAPICallError & {
  data?: { error?: string };
  retryAfter?: number;
  statusCode?: number;
};

const isSlackError = (error: unknown): error is SlackCallError =>
  error instanceof Error && typeof (error as { code?: unknown }).code === "string";

export function toPlatformError(error: unknown, method = "Slack call"): PlatformError {
  if (error instanceof PlatformError) return error;
  if (!isSlackError(error)) {
    return new PlatformError("transient", `${method}: ${error instanceof Error ? error.name : "failed"}`);
  }
  switch (error.code) {
    case ErrorCode.RateLimitedError: {
      const seconds = error.retryAfter;
      const retryAfterMs =
        typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS;
      return new PlatformError("rate_limited", `${method}: rate limited`, { status: 429, retryAfterMs });
    }
    case ErrorCode.PlatformError: {
      const code = error.data?.error ?? "unknown_error";
      const kind = TRANSIENT_CODES.has(code) ? "transient" : "permanent";
      return new PlatformError(kind, `${method}: ${code}`, { code });
    }
    case ErrorCode.HTTPError: {
      const status = error.statusCode;
      const kind = status === undefined || status >= 500 ? "transient" : "permanent";
      return new PlatformError(kind, `${method}: HTTP ${status ?? "error"}`, {
        ...(status !== undefined ? { status } : {}),
      });
    }
    default:
      // RequestError (the network), a timeout: worth another try.
      return new PlatformError("transient", `${method}: request failed (${error.code})`);
  }
}

/** Runs a Slack call; whatever fails comes out as the PlatformError the send queue reads. */
export async function slackCall<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toPlatformError(error, method);
  }
}
