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

/** Round trips timed over some windows of load: summed by `add`, read by `result`. */
export class LoadSample {
  private readonly latencies: number[] = [];
  private elapsedMs = 0;

  constructor(readonly users: number) {}

  /** Runs the load for `durationMs` and adds its round trips and time to this sample. */
  async add(durationMs: number, roundTrip: RoundTrip): Promise<void> {
    const started = performance.now();
    const deadline = started + durationMs;
    const user = async (index: number) => {
      while (performance.now() < deadline) {
        const sentAt = performance.now();
        await roundTrip(index);
        this.latencies.push(performance.now() - sentAt);
      }
    };
    await Promise.all(Array.from({ length: this.users }, (_, index) => user(index)));
    this.elapsedMs += performance.now() - started;
  }

  result(): LoadResult {
    const sorted = sortedCopy(this.latencies);
    return {
      users: this.users,
      messages: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      perSecond: sorted.length / (this.elapsedMs / 1000),
    };
  }
}

export async function runClosedLoop(
  users: number,
  durationMs: number,
  roundTrip: RoundTrip,
): Promise<LoadResult> {
  const sample = new LoadSample(users);
  await sample.add(durationMs, roundTrip);
  return sample.result();
}
