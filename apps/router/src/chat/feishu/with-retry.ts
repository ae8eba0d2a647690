import { type FeishuError, toFeishuError } from "./feishu-error.ts";

// Retries Feishu rate-limit answers (HTTP 429 / code 99991400) and 5xx with exponential
// backoff, waiting at least as long as Feishu's reset header says.

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const sleep = policy.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    let error: FeishuError;
    try {
      return await call();
    } catch (thrown) {
      error = toFeishuError(thrown);
    }
    if (!error.retriable || attempt >= policy.attempts) throw error;
    const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
    await sleep(Math.max(backoff, Math.min(error.retryAfterMs ?? 0, policy.maxMs)));
  }
}
