/** Time source, injectable so tests can drive it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** "3h", "47m", "12s": the compact durations used in chat listings. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? ` ${m % 60}m` : ""}`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * "12s ago", "5m ago", "3h 5m ago", "2d ago": how long ago, in the same compact units as
 * `formatDuration`, so "online 3h" and "last seen 5s ago" read alike wherever they are shown.
 */
export function formatAgo(ms: number): string {
  return `${formatDuration(ms)} ago`;
}
