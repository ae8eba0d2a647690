import type { Cleanup } from "./cleanup.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { BENCH_SECRET, startRouterProcess } from "./router-control.ts";
import { startSimHosts } from "./sim-control.ts";
import { round } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// Figure 3: with N hosts registered, SIGKILL the router (a crash: hosts see 1006, not 1012),
// start a new one on the same port and data dir, and time until all N are registered with it.
// The hosts reconnect with the host app's own backoff (see sim-host.ts).

const STORM_SIZES = [1000, 10_000];
/** Targets apply at this size; smaller storms are reported for context. */
const TARGET_SIZE = 10_000;
const GIVE_UP_MS = 90_000;

export async function measureReconnectStorm(cleanup: Cleanup): Promise<Figure[]> {
  const dataDir = tempDir(cleanup, "storm");
  let router = await startRouterProcess({ dataDir }, cleanup);
  const port = router.port;
  const hosts = startSimHosts(cleanup);
  const figures: Figure[] = [];
  let connected = 0;

  for (const size of STORM_SIZES) {
    await hosts.connect(router.nodeUrl, BENCH_SECRET, size - connected, {
      parallel: 200,
      timeoutMs: 120_000,
    });
    connected = size;
    await hosts.counters(true);

    const killedAt = Date.now();
    await router.kill("SIGKILL");
    router = await startRouterProcess({ dataDir, port }, cleanup);
    const done = await router.awaitOnline(size, GIVE_UP_MS).catch(() => undefined);
    const { counters } = await hosts.counters(false);
    const reached = done
      ? undefined
      : `only ${(await router.stats(false)).online} re-registered in ${GIVE_UP_MS / 1000} s`;
    const loopDelay = done?.loopDelay ?? (await router.stats(false)).loopDelay;

    const label = `${size.toLocaleString("en-US")} hosts`;
    const allBack = done ? round((done.at - killedAt) / 1000) : null;
    const peakDelay = round(loopDelay.maxMs, 1);
    const attempts = `${counters.attempts} connection attempts, ${counters.failedAttempts} failed`;
    figures.push(
      size === TARGET_SIZE
        ? atMost(`all re-registered after router kill, ${label}`, allBack, "s", 30, reached)
        : info(`all re-registered after router kill, ${label}`, allBack, "s", reached),
      info(
        `  of which new router starting (kill → listening), ${label}`,
        round((router.readyAt - killedAt) / 1000),
        "s",
      ),
      size === TARGET_SIZE
        ? atMost(`peak event-loop delay during storm, ${label}`, peakDelay, "ms", 100)
        : info(`peak event-loop delay during storm, ${label}`, peakDelay, "ms"),
      info(`event-loop delay p99 during storm, ${label}`, round(loopDelay.p99Ms, 1), "ms"),
      info(`HTTP 503 answers during storm, ${label}`, counters.http503, "", attempts),
    );
  }
  await router.kill("SIGTERM");
  await hosts.stop();
  return figures;
}
