import { GrammyError, HttpError } from "grammy";
import { PlatformError } from "../platform-adapter.ts";

// What grammY throws, as the PlatformError the shared send queue decides on: flood control (429,
// with Telegram's retry_after) is rate_limited, network trouble and 5xx are transient, an edit that
// changes nothing is not_modified, any other refusal is permanent.

const NOT_MODIFIED = /message is not modified/i;

/** When Telegram gives no retry_after with a 429 (it always should), wait this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export function toPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof GrammyError) {
    const code = error.error_code;
    const details = { code, status: code };
    const message = `${error.method}: ${error.description}`;
    if (code === 429) {
      const retryAfter = error.parameters.retry_after;
      const retryAfterMs = typeof retryAfter === "number" ? retryAfter * 1000 : DEFAULT_RETRY_AFTER_MS;
      return new PlatformError("rate_limited", message, { ...details, retryAfterMs });
    }
    if (code >= 500) return new PlatformError("transient", message, details);
    if (code === 400 && NOT_MODIFIED.test(error.description)) {
      return new PlatformError("not_modified", message, details);
    }
    return new PlatformError("permanent", message, details);
  }
  // grammY's own message names the method, never the URL (which holds the token); the wrapped
  // error's message may hold it, so it is left out.
  if (error instanceof HttpError) return new PlatformError("transient", error.message);
  return new PlatformError("permanent", error instanceof Error ? error.message : String(error));
}

/** A line for the log that cannot carry the token (see above). */
export function describeError(error: unknown): string {
  return toPlatformError(error).message;
}
