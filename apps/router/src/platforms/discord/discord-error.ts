import { DiscordAPIError, HTTPError, RateLimitError } from "@discordjs/rest";
import { PlatformError } from "../platform-adapter.ts";

// What @discordjs/rest throws, as the PlatformError the shared send queue decides on: a rate limit
// (429, or a bucket known to be empty) is rate_limited with Discord's retry_after, 5xx and network
// trouble are transient, any other refusal (403 missing access, 404 unknown channel, 50007 cannot
// DM this user…) is permanent. No message here holds the token: the library's never do.

/** When Discord gives no retry_after with a 429 (it always should), wait this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export function toPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof RateLimitError) {
    const retryAfterMs = error.retryAfter > 0 ? error.retryAfter : error.timeToReset;
    return new PlatformError("rate_limited", `${error.method.toUpperCase()} ${error.route}: rate limited`, {
      status: 429,
      retryAfterMs: retryAfterMs > 0 ? retryAfterMs : DEFAULT_RETRY_AFTER_MS,
    });
  }
  if (error instanceof DiscordAPIError) {
    const details = { status: error.status, code: error.code };
    const message = `${error.method.toUpperCase()} ${routeOf(error.url)}: ${error.message}`;
    if (error.status === 429) {
      return new PlatformError("rate_limited", message, { ...details, retryAfterMs: DEFAULT_RETRY_AFTER_MS });
    }
    if (error.status >= 500) return new PlatformError("transient", message, details);
    return new PlatformError("permanent", message, details);
  }
  if (error instanceof HTTPError) {
    const details = { status: error.status };
    const message = `${error.method.toUpperCase()} ${routeOf(error.url)}: HTTP ${error.status}`;
    if (error.status >= 500 || error.status === 408) return new PlatformError("transient", message, details);
    return new PlatformError("permanent", message, details);
  }
  // Network errors (connection refused, reset, the 15 s timeout's AbortError): worth a retry.
  return new PlatformError("transient", error instanceof Error ? error.message : String(error));
}

/** The path of a request, without the host or the query: interaction tokens are in paths, so cut them. */
function routeOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  return path.replace(/\/(interactions\/\d+|webhooks\/\d+)\/[^/]+/, "/$1/…");
}

/** A line for the log. */
export function describeError(error: unknown): string {
  return toPlatformError(error).message;
}
