import type { Cleanup } from "./cleanup.ts";
import { type LoadResult, type RoundTrip, runClosedLoop } from "./closed-loop.ts";
import { measureDurableCommitMs } from "./durable-commit.ts";
import { atLeast, atMost, type Figure, info } from "./figure.ts";
import { forwardFrameBytes, startForwardingRig } from "./forwarding-rig.ts";
import { startRawEcho } from "./raw-echo.ts";
import { round } from "./stats.ts";

// Figure 1: forwarded round trip against a raw ws echo of the same size, at 1, 10 and 100 users.
// The two alternate per concurrency level, so background load on the machine hits both alike.

const USER_COUNTS = [1, 10, 100];
const WARM_UP_MS = 500;
const MEASURE_MS = 2500;

async function measure(users: number, roundTrip: RoundTrip): Promise<LoadResult> {
  await runClosedLoop(users, WARM_UP_MS, roundTrip); // JIT, first-message state per user
  return runClosedLoop(users, MEASURE_MS, roundTrip);
}

export async function measureRoundTrip(cleanup: Cleanup): Promise<Figure[]> {
  const bytes = forwardFrameBytes();
  const raw = await startRawEcho(cleanup, bytes);
  const forwarded = await startForwardingRig(cleanup);
  const commitMs = measureDurableCommitMs(cleanup);
  const figures: Figure[] = [
    info(
      "one durable outbox commit (SQLite synchronous=FULL), p50",
      round(commitMs, 3),
      "ms",
      "paid once per forwarded answer (group-committed when several are ready together)",
    ),
  ];
  for (const users of USER_COUNTS) {
    const label = users === 1 ? "1 user" : `${users} users`;
    const base = await measure(users, raw);
    const fwd = await measure(users, forwarded);
    const note = `${bytes}-byte messages; ${base.messages} raw / ${fwd.messages} forwarded round trips`;
    figures.push(
      info(`raw ws echo p50, ${label}`, round(base.p50Ms, 3), "ms"),
      info(`raw ws echo p99, ${label}`, round(base.p99Ms, 3), "ms"),
      info(`raw ws echo throughput, ${label}`, Math.round(base.perSecond), "msg/s"),
      info(`forwarded p50, ${label}`, round(fwd.p50Ms, 3), "ms"),
      info(`forwarded p99, ${label}`, round(fwd.p99Ms, 3), "ms"),
      info(`forwarded throughput, ${label}`, Math.round(fwd.perSecond), "msg/s", note),
      atMost(`forwarded ÷ raw p50, ${label}`, round(fwd.p50Ms / base.p50Ms), "×", 3),
      atLeast(`forwarded ÷ raw throughput, ${label}`, round(fwd.perSecond / base.perSecond), "×", 0.4),
    );
  }
  return figures;
}
