// Reconnect delays: exponential growth, capped, with full jitter so that many hosts
// dropped at the same moment do not all come back in the same second.

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export function reconnectDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(50, Math.round(random() * ceiling));
}

/**
 * After a refusal that said when to come back (HTTP 503 with `Retry-After: <seconds>`, a router
 * admitting handshakes at its own pace): at least that long, spread over up to twice it so the
 * hosts it refused together do not return together, and never past the policy's cap. Undefined
 * when the header is missing or not a number of seconds (the usual backoff applies then).
 */
export function retryAfterDelay(
  header: string | string[] | undefined,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d{1,6}$/.test(text.trim())) return undefined;
  const ms = Math.min(policy.maxMs, Number(text.trim()) * 1000);
  return Math.min(policy.maxMs, Math.round(ms + random() * ms));
}
