import { readdirSync } from "node:fs";
import { HostConfigSchema } from "../apps/host/src/config/host-config.ts";
import { createHost, type Host } from "../apps/host/src/create-host.ts";
import { newIdentity } from "../apps/host/src/identity/node-identity.ts";
import { type RouterConfig, RouterConfigSchema } from "../apps/router/src/config/router-config.ts";
import { createRouter, type Router } from "../apps/router/src/create-router.ts";
import { createTelegramAdapter } from "../apps/router/src/platforms/telegram/telegram-adapter.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import { startFakeTelegram } from "../packages/testkit/src/fake-telegram/index.ts";
import type { Cleanup } from "./cleanup.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { type FloodSettings, startFloodClient } from "./flood-control.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// The security review's attack, measured: one address (127.0.0.2, from a process of its own) tries
// to hold far more connections than MAX_CONNECTIONS_PER_ADDRESS — idle ones, silent WebSocket
// upgrades naming a real node, half-sent requests — and opens a new one for each the router drops.
// Meanwhile, from 127.0.0.1, a paired host (a real host with its own key, the host app's own
// backoff) loses its link and reconnects, and Telegram's webhook is posted to (signed with its
// secret, one update at a time). Both are timed before the flood and during it. The router runs
// with its defaults (key mode: no shared secret), in this process with the host and the fake
// Telegram; the attacker's sockets cost this process only what they cost the router.

const NODE = "home-pc";
const HOOK_SECRET = "bench-hook-secret_0123";
const ATTACKER = "127.0.0.2";
const WEBHOOKS = 200;
const WARM_UP = 50;
const RECONNECTS = 10;
const FLOOD: Omit<FloodSettings, "port"> = {
  localAddress: ATTACKER,
  size: 1000,
  holds: ["idle", "upgrade", "half-request"],
  nodeId: NODE,
  reopenMs: 250,
};

interface World {
  router: Router;
  config: RouterConfig;
  url: string;
  host: Host;
}

async function startWorld(cleanup: Cleanup): Promise<World> {
  const logger = createLogger({ level: "silent" });
  const fake = await startFakeTelegram({});
  cleanup.add(() => fake.close());
  const config = RouterConfigSchema.parse({
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: tempDir(cleanup, "front-door-router"),
    ALLOWED_USERS: "*",
    PROGRESS_INTERVAL_S: 0,
  });
  const telegram = createTelegramAdapter({
    name: "telegram",
    token: fake.token,
    apiRoot: fake.url,
    mode: { kind: "webhook", secret: HOOK_SECRET },
    logger,
  });
  const router = createRouter(config, { logger, chat: [telegram] });
  cleanup.add(() => router.close({ drainMs: 0 }));
  const url = await router.start();

  const code = router.pairing.pair(NODE, "telegram:1");
  if (!code.ok) throw new Error(code.error);
  const dir = tempDir(cleanup, "front-door-host");
  const host = createHost(
    HostConfigSchema.parse({
      ROUTER_URL: router.nodeUrl,
      NODE_ID: NODE,
      WORKING_DIR: dir,
      DATA_DIR: dir,
      SANDBOX: "off",
    }),
    { logger, identity: newIdentity(dir, NODE, code.value.code) },
  );
  host.start();
  cleanup.add(() => host.stop());
  await host.ready();
  return { router, config, url, host };
}

let nextUpdate = 1;

/** One Telegram update posted to the webhook as Telegram does; ms until the router's 200. */
async function webhookRoundTrip(url: string): Promise<number> {
  const id = nextUpdate++;
  const from = { id: 4242, is_bot: false, first_name: "Bench" };
  const body = JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: from.id, type: "private", first_name: from.first_name },
      from,
      text: `ping ${id}`,
    },
  });
  const started = performance.now();
  const response = await fetch(`${url}/webhook/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": HOOK_SECRET },
    body,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`the webhook answered ${response.status}`);
  return performance.now() - started;
}

async function webhookTimes(url: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await webhookRoundTrip(url));
  return times;
}

/** The router drops the host's link; ms until the host is registered again (its own backoff included). */
async function reconnectTime(world: World): Promise<number> {
  const { host, router } = world;
  const back = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the host did not come back in 30 s")), 30_000);
    let left = false;
    const stop = host.link.onStateChange((state) => {
      if (state !== "registered") left = true;
      else if (left) {
        clearTimeout(timer);
        stop();
        resolve();
      }
    });
  });
  const started = performance.now();
  router.registry.connection(NODE)?.close(1012, "bench: link dropped");
  await back;
  return performance.now() - started;
}

async function reconnectTimes(world: World): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RECONNECTS; i++) times.push(await reconnectTime(world));
  return times;
}

/** Samples the most connections counted against the attacker, and this process's open descriptors. */
function sampler(router: Router) {
  const peaks = { attacker: 0, fds: 0, rss: 0 };
  const sample = () => {
    peaks.attacker = Math.max(peaks.attacker, router.frontDoor.caps.countFor(ATTACKER));
    peaks.fds = Math.max(peaks.fds, readdirSync("/proc/self/fd").length);
    peaks.rss = Math.max(peaks.rss, process.memoryUsage().rss);
  };
  const timer = setInterval(sample, 20);
  return {
    peaks,
    stop: () => clearInterval(timer),
  };
}

export async function measureFrontDoor(cleanup: Cleanup): Promise<Figure[]> {
  const world = await startWorld(cleanup);
  const { config } = world;
  const p = (values: number[], at: number) => round(percentile(sortedCopy(values), at), 2);
  const max = (values: number[]) => round(Math.max(...values), 1);

  await webhookTimes(world.url, WARM_UP);
  const calmHooks = await webhookTimes(world.url, WEBHOOKS);
  const calmReconnects = await reconnectTimes(world);
  const calmFds = readdirSync("/proc/self/fd").length;
  const calmRss = process.memoryUsage().rss;

  const attacker = startFloodClient(cleanup);
  const port = Number(new URL(world.url).port);
  const watch = sampler(world.router);
  const floodStarted = performance.now();
  await attacker.start({ ...FLOOD, port });
  const deadline = performance.now() + 10_000;
  while (world.router.frontDoor.caps.countFor(ATTACKER) < config.MAX_CONNECTIONS_PER_ADDRESS) {
    if (performance.now() > deadline) throw new Error("the flood never reached the per-address cap");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const floodHooks = await webhookTimes(world.url, WEBHOOKS);
  const floodReconnects = await reconnectTimes(world);
  // Long enough for the first idle connections and half-sent requests to reach their timeout.
  const headersMs = config.HTTP_HEADERS_TIMEOUT_S * 1000;
  while (performance.now() - floodStarted < headersMs + 2000)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const counters = await attacker.counters();
  const floodS = (performance.now() - floodStarted) / 1000;
  await attacker.stop();
  watch.stop();

  const hookLimit = round(2 * p(calmHooks, 50) + 5, 2);
  const cap = config.MAX_CONNECTIONS_PER_ADDRESS;
  const flood = `${FLOOD.size} connections held at once from ${ATTACKER} (idle, silent upgrades, half-sent requests), each one dropped opened again after ${FLOOD.reopenMs} ms`;
  return [
    info(
      "webhook answered, no flood: p50",
      p(calmHooks, 50),
      "ms",
      `${WEBHOOKS} signed POSTs, one at a time`,
    ),
    info("webhook answered, no flood: p99", p(calmHooks, 99), "ms"),
    atMost(
      "webhook answered during the flood: p50",
      p(floodHooks, 50),
      "ms",
      hookLimit,
      `${flood}; target: 2 × the no-flood p50 + 5 ms`,
    ),
    info("webhook answered during the flood: p99", p(floodHooks, 99), "ms"),
    info(
      "paired host reconnect, no flood: median",
      p(calmReconnects, 50),
      "ms",
      `${RECONNECTS} link drops; the host's own backoff (full jitter, 500 ms base) included`,
    ),
    info("paired host reconnect, no flood: slowest", max(calmReconnects), "ms"),
    info("paired host reconnect during the flood: median", p(floodReconnects, 50), "ms"),
    atMost("paired host reconnect during the flood: slowest", max(floodReconnects), "ms", 2000),
    atMost(
      "attacker's connections held at once (router's count)",
      watch.peaks.attacker,
      "",
      cap,
      `MAX_CONNECTIONS_PER_ADDRESS (${cap}); ${counters.attempts} attempts in ${round(floodS, 1)} s, ${counters.refused} dropped when accepted`,
    ),
    atMost(
      "silent WebSocket held at most, from its 101",
      round(counters.longestUpgradedMs / 1000, 2),
      "s",
      config.HANDSHAKE_TIMEOUT_S + 0.5,
      `HANDSHAKE_TIMEOUT_S (${config.HANDSHAKE_TIMEOUT_S} s); ${counters.upgraded} upgrades let in`,
    ),
    info(
      "silent upgrade's connection held at most, from its connect",
      round(counters.longestHeldMs.upgrade / 1000, 2),
      "s",
      "includes waiting in the accept queue and for the 101 while the flood starts",
    ),
    atMost(
      "idle connection or half-sent request held at most",
      round(Math.max(counters.longestHeldMs.idle, counters.longestHeldMs["half-request"]) / 1000, 2),
      "s",
      config.HTTP_HEADERS_TIMEOUT_S + 1.5,
      `HTTP_HEADERS_TIMEOUT_S (${config.HTTP_HEADERS_TIMEOUT_S} s), checked every second; ${counters.timedOut} answered 408`,
    ),
    info(
      "open file descriptors of the router's process during the flood, at most",
      watch.peaks.fds,
      "",
      `${calmFds} before it (router, host and fake Telegram share this process)`,
    ),
    info(
      "RSS of the router's process during the flood, at most",
      round(watch.peaks.rss / 1024 / 1024, 1),
      "MiB",
      `${round(calmRss / 1024 / 1024, 1)} MiB before it; no GC forced, and the webhooks and reconnects measured meanwhile count too`,
    ),
  ];
}
