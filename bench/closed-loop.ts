import { percentile, sortedCopy } from "./stats.ts";

// A closed-loop load: each user sends its next message the moment its previous reply arrives,
// so throughput is what the system sustains at that concurrency, not what we offer it.

export type RoundTrip = (user: number) => Promise<void>;

export interface LoadResult {
  users: number;
  messages: number;
  p50Ms: number;
  p99Ms: number;
  perSecond: number;
}

export async function runClosedLoop(
  users: number,
  durationMs: number,
  roundTrip: RoundTrip,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const user = async (index: number) => {
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      await roundTrip(index);
      latencies.push(performance.now() - sentAt);
    }
  };
  await Promise.all(Array.from({ length: users }, (_, index) => user(index)));
  const elapsedS = (performance.now() - started) / 1000;
  const sorted = sortedCopy(latencies);
  return {
    users,
    messages: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    perSecond: sorted.length / elapsedS,
  };
}
