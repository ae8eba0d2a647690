import type { Cleanup } from "./cleanup.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { measureKeyHandshakeCpu } from "./key-handshake-cpu.ts";
import { startRouterProcess } from "./router-control.ts";
import { startSimHosts } from "./sim-control.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// Figure 3: with N paired hosts registered (each proving its own Ed25519 key, as real hosts do),
// SIGKILL the router (a crash: hosts see 1006, not 1012), start a new one on the same port and
// data dir, and time until all N are registered with it. The hosts reconnect with the host app's
// own backoff and honour 503 + Retry-After (see sim-host.ts). While they do, one of them (sim-0)
// is sent a chat message every 100 ms through the router: the chat round trip during the storm.

const STORM_SIZES = (process.env.BENCH_STORM_SIZES ?? "1000,10000").split(",").map(Number);
/** Targets apply at this size; smaller storms are reported for context. */
const TARGET_SIZE = 10_000;
const GIVE_UP_MS = 90_000;
const CHAT_HOST = "sim-0";

export async function measureReconnectStorm(cleanup: Cleanup): Promise<Figure[]> {
  // Before the router and the simulated hosts start: their start-up (the router seeds 10,000
  // keys) would share the two cores with the measurement.
  const cpu = measureKeyHandshakeCpu();
  const dataDir = tempDir(cleanup, "storm");
  const pairedHosts = Math.max(...STORM_SIZES);
  let router = await startRouterProcess({ dataDir, pairedHosts }, cleanup);
  const port = router.port;
  const hosts = startSimHosts(cleanup);
  const figures: Figure[] = [
    atMost("key handshake CPU, key parsed before", cpu.warmMs, "ms", 0.13),
    info("key handshake CPU, first since router start (parses the key)", cpu.coldMs, "ms"),
  ];
  let connected = 0;

  for (const size of STORM_SIZES) {
    await hosts.connect(router.nodeUrl, undefined, size - connected, { parallel: 200, timeoutMs: 120_000 });
    connected = size;
    await hosts.counters(true);

    const killedAt = Date.now();
    await router.kill("SIGKILL");
    router = await startRouterProcess({ dataDir, port, pairedHosts }, cleanup);
    const done = await router.awaitOnline(size, GIVE_UP_MS, CHAT_HOST).catch(() => undefined);
    const { counters } = await hosts.counters(false);
    const stats = done ? undefined : await router.stats(false);
    const reached = stats ? `only ${stats.online} re-registered in ${GIVE_UP_MS / 1000} s` : undefined;
    const loopDelay = done?.loopDelay ?? stats?.loopDelay ?? { maxMs: 0, p99Ms: 0, meanMs: 0 };
    const chat = sortedCopy(done?.chatMs ?? stats?.chatMs ?? []);

    const label = `${size.toLocaleString("en-US")} hosts`;
    const target = size === TARGET_SIZE;
    const allBack = done ? round((done.at - killedAt) / 1000) : null;
    const peakDelay = round(loopDelay.maxMs, 1);
    const attempts = `${counters.attempts} connection attempts, ${counters.failedAttempts} failed (${counters.noListener} before the new router listened)`;
    if (process.env.BENCH_STORM_FAILURES) console.log(label, counters.failures);
    const chatNote = `${chat.length} round trips while the storm ran`;
    const chatP50 = chat.length ? round(percentile(chat, 50), 1) : null;
    const chatMax = chat.length ? round(chat[chat.length - 1] ?? 0, 1) : null;
    figures.push(
      target
        ? atMost(`all re-registered after router kill, ${label}`, allBack, "s", 30, reached)
        : info(`all re-registered after router kill, ${label}`, allBack, "s", reached),
      info(
        `  of which new router starting (kill → listening), ${label}`,
        round((router.readyAt - killedAt) / 1000),
        "s",
      ),
      target
        ? atMost(`peak event-loop delay during storm, ${label}`, peakDelay, "ms", 100)
        : info(`peak event-loop delay during storm, ${label}`, peakDelay, "ms"),
      info(`event-loop delay p99 during storm, ${label}`, round(loopDelay.p99Ms, 1), "ms"),
      info(`HTTP 503 answers during storm, ${label}`, counters.http503, "", attempts),
      target
        ? atMost(`chat round trip p50 during storm, ${label}`, chatP50, "ms", 100, chatNote)
        : info(`chat round trip p50 during storm, ${label}`, chatP50, "ms", chatNote),
      target
        ? atMost(`chat round trip max during storm, ${label}`, chatMax, "ms", 250)
        : info(`chat round trip max during storm, ${label}`, chatMax, "ms"),
    );
  }
  await router.kill("SIGTERM");
  await hosts.stop();
  return figures;
}
