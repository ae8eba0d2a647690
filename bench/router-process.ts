import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { RouterConfigSchema } from "../apps/router/src/config/router-config.ts";
import { createRouter } from "../apps/router/src/create-router.ts";
import { openRouterDatabase, routerDatabasePath } from "../apps/router/src/database/router-db.ts";
import { createMemoryChatAdapter } from "../apps/router/src/platforms/memory/memory-adapter.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import { startChatProbe } from "./chat-probe.ts";
import {
  BENCH_SECRET,
  type LoopDelay,
  type RouterCommand,
  type RouterReport,
  type RouterSettings,
} from "./router-control.ts";
import { seedPairedHosts } from "./sim-keys.ts";

// Child process: one real router (createRouter, as `pnpm router` builds it) that reports its
// memory, registered-node count and event-loop delay to the bench over IPC.

const settings = JSON.parse(process.env.BENCH_ROUTER_SETTINGS ?? "{}") as RouterSettings;
const report = (message: RouterReport) => process.send?.(message);
// The bench going away closes the channel; a router left behind would hold the port.
process.on("disconnect", () => process.exit(0));
// A normal exit on SIGTERM, so `--cpu-prof` and the like can write their output.
process.on("SIGTERM", () => process.exit(0));

const config = RouterConfigSchema.parse({
  ROUTER_SECRET: BENCH_SECRET,
  ROUTER_HOST: "127.0.0.1",
  ROUTER_PORT: settings.port ?? 0,
  DATA_DIR: settings.dataDir,
  PROGRESS_INTERVAL_S: 0,
  ...(settings.heartbeatIntervalS ? { HEARTBEAT_INTERVAL_S: settings.heartbeatIntervalS } : {}),
  ...(settings.heartbeatTimeoutS ? { HEARTBEAT_TIMEOUT_S: settings.heartbeatTimeoutS } : {}),
  ...(settings.pairedHosts ? { ALLOWED_USERS: "*" } : {}),
});
const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
if (settings.pairedHosts) seedPairedHosts(db, settings.pairedHosts);
const chat = createMemoryChatAdapter();
const router = createRouter(config, { logger: createLogger({ level: "silent" }), chat: [chat], db });

const loop = monitorEventLoopDelay({ resolution: 10 });
const loopDelay = (): LoopDelay => ({
  maxMs: loop.max / 1e6,
  p99Ms: loop.percentile(99) / 1e6,
  meanMs: loop.mean / 1e6,
});

// Who is registered right now; a node that re-registers replaces its entry without an offline event.
const online = new Set<string>();
const waiting = new Set<number>();
let probe: ReturnType<typeof startChatProbe> | undefined;
const onlineReport = (): RouterReport => {
  const chatMs = probe?.stop();
  probe = undefined;
  return {
    type: "online",
    count: online.size,
    at: Date.now(),
    loopDelay: loopDelay(),
    ...(chatMs ? { chatMs } : {}),
  };
};
router.registry.subscribe((event) => {
  if (event.type === "online") online.add(event.node.nodeId);
  if (event.type === "offline") online.delete(event.node.nodeId);
  for (const count of waiting) {
    if (online.size < count) continue;
    waiting.delete(count);
    report(onlineReport());
  }
});

// BENCH_STORM_PROGRESS=1: the count registered, each second, on stderr (where a storm's time goes).
if (process.env.BENCH_STORM_PROGRESS) {
  const started = Date.now();
  setInterval(
    () => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0)}s ${online.size}] `),
    1000,
  ).unref();
}
process.on("message", (command: RouterCommand) => {
  if (command.type === "stats") void reportStats(command.gc);
  else if (online.size >= command.count) report(onlineReport());
  else {
    if (command.chatProbe) probe = startChatProbe(chat, router.registry, command.chatProbe);
    waiting.add(command.count);
  }
});

/** With `gc`, memory retained by live connections only: garbage collected twice, a moment apart. */
async function reportStats(gc: boolean): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 200));
    collect();
  }
  const chatMs = probe?.stop();
  probe = undefined;
  const memory = process.memoryUsage();
  report({
    type: "stats",
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    heapSpaces: Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, [space.space_size, space.space_used_size]]),
    ),
    online: online.size,
    loopDelay: loopDelay(),
    ...(chatMs ? { chatMs } : {}),
  });
}

// Build the app first so its start-up work is not counted; then watch the loop from before the
// first connection can arrive, since a storm starts the moment we listen.
await router.app.ready();
loop.enable();
if (process.env.BENCH_STORM_TRACE) traceLongTurns();
await router.start();
report({
  type: "ready",
  nodeUrl: router.nodeUrl,
  port: Number(new URL(router.nodeUrl).port),
  readyAt: Date.now(),
});

/**
 * Diagnostic (BENCH_STORM_TRACE=1): each turn of the loop longer than 40 ms, on stderr, timed from
 * listening, with what happened since the turn before: connections accepted, upgrades, nodes
 * registered, and garbage collections of 10 ms or more.
 */
function traceLongTurns(): void {
  const started = performance.now();
  let last = started;
  const seen = { accepted: 0, upgrades: 0, registered: 0, gcMs: 0 };
  router.app.server.on("connection", () => seen.accepted++);
  router.app.server.on("upgrade", () => seen.upgrades++);
  router.registry.subscribe((event) => {
    if (event.type === "online") seen.registered++;
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.duration >= 10) seen.gcMs += Math.round(entry.duration);
  }).observe({ entryTypes: ["gc"] });
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const cpuMs = Math.round((used.user + used.system) / 1000);
    if (now - last > 50)
      process.stderr.write(
        `[${process.pid}] long turn: ${Math.round(now - last - 10)} ms at ${Math.round(now - started)} ms ${JSON.stringify({ ...seen, cpuMs })}\n`,
      );
    Object.assign(seen, { accepted: 0, upgrades: 0, registered: 0, gcMs: 0 });
    last = now;
    cpu = process.cpuUsage();
  }, 10).unref();
}
