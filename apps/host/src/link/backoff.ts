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
