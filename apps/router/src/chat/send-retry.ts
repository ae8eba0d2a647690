import { PlatformError } from "../platforms/platform-adapter.ts";

// Retries one platform call the way every platform wants: after a rate limit, no sooner than the
// platform said (Telegram's retry_after, Feishu's reset header); after a network or server error,
// with exponential backoff; never after a refusal. The caller keeps one idempotency key across
// the attempts, so a platform that dedupes sends the message at most once.

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** A retry-after beyond this is not waited for: the send fails (the platform has blocked us for long). */
  maxRetryAfterMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseMs: 500,
  maxMs: 30_000,
  maxRetryAfterMs: 120_000,
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Anything an adapter throws that is not a PlatformError is a bug or a network error: transient. */
export function asPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  return new PlatformError("transient", error instanceof Error ? error.message : String(error));
}

export async function withPlatformRetry<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const sleep = policy.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    let error: PlatformError;
    try {
      return await call();
    } catch (thrown) {
      error = asPlatformError(thrown);
    }
    if (error.kind === "permanent" || error.kind === "not_modified" || attempt >= policy.attempts)
      throw error;
    const retryAfter = error.details.retryAfterMs;
    if (error.kind === "rate_limited" && retryAfter !== undefined) {
      if (retryAfter > policy.maxRetryAfterMs) throw error;
      await sleep(retryAfter);
    } else {
      await sleep(Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)));
    }
  }
}
