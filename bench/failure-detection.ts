import type { Cleanup } from "./cleanup.ts";
import { type Figure, info } from "./figure.ts";
import { startInProcessRouter } from "./in-process-router.ts";
import { BENCH_SECRET } from "./router-control.ts";
import { ScriptedHost } from "./scripted-host.ts";
import { percentile, round, sortedCopy } from "./stats.ts";

// Figure 4: how long a failure stays unnoticed. A host that stops answering pings (hung, or its
// link silently dead) is found by the heartbeat; a host whose TCP connection is destroyed fails
// the requests pending on it. Router and hosts run in this process, so one clock times both ends.

const HEARTBEAT_INTERVAL_S = 1;
const HEARTBEAT_TIMEOUT_S = 1;
const TRIALS = 5;

export async function measureFailureDetection(cleanup: Cleanup): Promise<Figure[]> {
  const rig = await startInProcessRouter(cleanup, {
    HEARTBEAT_INTERVAL_S,
    HEARTBEAT_TIMEOUT_S,
  });
  const heartbeat = `HEARTBEAT_INTERVAL_S=${HEARTBEAT_INTERVAL_S}, HEARTBEAT_TIMEOUT_S=${HEARTBEAT_TIMEOUT_S}`;
  const silent = sortedCopy(await silentHostDetections(rig, cleanup));
  const vanished = sortedCopy(await vanishedHostFailures(rig, cleanup));
  return [
    info(
      `silent host marked offline (last pong → offline), median of ${TRIALS}`,
      round(percentile(silent, 50)),
      "ms",
      `${heartbeat}; by design about interval + timeout = 2 s`,
    ),
    info(
      `silent host marked offline, worst of ${TRIALS}`,
      round(silent.at(-1) ?? Number.NaN),
      "ms",
      heartbeat,
    ),
    info(
      `pending request failed (TCP destroyed → NODE_OFFLINE reply), median of ${TRIALS}`,
      round(percentile(vanished, 50), 3),
      "ms",
    ),
    info(`pending request failed, worst of ${TRIALS}`, round(vanished.at(-1) ?? Number.NaN, 3), "ms"),
  ];
}

type Rig = Awaited<ReturnType<typeof startInProcessRouter>>;

/** Hosts that go silent after their first or second pong, all at once; ms from last pong to offline. */
async function silentHostDetections({ router }: Rig, cleanup: Cleanup): Promise<number[]> {
  const offline = new Map<string, (at: number) => void>();
  const unsubscribe = router.registry.subscribe((event) => {
    if (event.type === "offline") offline.get(event.node.nodeId)?.(performance.now());
  });
  cleanup.add(unsubscribe);
  return Promise.all(
    Array.from({ length: TRIALS }, async (_, i) => {
      const nodeId = `silent-host-${i}`;
      const host = await ScriptedHost.connect(router.nodeUrl, BENCH_SECRET, nodeId);
      cleanup.add(() => host.vanish());
      const offlineAt = new Promise<number>((resolve) => offline.set(nodeId, resolve));
      await host.silenceAfter(1 + (i % 2));
      return (await offlineAt) - host.lastPongAt;
    }),
  );
}

/** A request is pending on a host when its connection is destroyed; ms until the user is told. */
async function vanishedHostFailures({ router, chat, nextReply }: Rig, cleanup: Cleanup): Promise<number[]> {
  const times: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const nodeId = "vanishing-host";
    const host = await ScriptedHost.connect(router.nodeUrl, BENCH_SECRET, nodeId);
    cleanup.add(() => host.vanish());
    const userId = `user-${nodeId}`; // the one user a simulated host serves
    const forwarded = host.nextForward();
    const failure = nextReply(userId, (text) => text.includes("went offline before answering"));
    chat.receive({ userId, text: "run the long job" });
    await forwarded;
    const vanishedAt = performance.now();
    host.vanish();
    await failure;
    times.push(performance.now() - vanishedAt);
  }
  return times;
}
