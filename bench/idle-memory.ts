import type { Cleanup } from "./cleanup.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { BENCH_SECRET, type RouterProcess, startRouterProcess } from "./router-control.ts";
import { startSimHosts } from "./sim-control.ts";
import { round } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// Figure 2: the router's resident memory with 1,000 and 10,000 idle registered hosts, and what
// each host costs: (RSS at N − RSS at 0) / N. Router and simulated hosts are separate processes.

const WARM_UP_HOSTS = 50;
const HANDSHAKES_IN_FLIGHT = 200;
const KiB = 1024;
const MiB = 1024 * 1024;

/** The first connections compile and allocate code paths every later one shares; keep that out of N. */
async function warmUp(router: RouterProcess, cleanup: Cleanup): Promise<void> {
  const warmUpHosts = startSimHosts(cleanup);
  await warmUpHosts.connect(router.nodeUrl, BENCH_SECRET, WARM_UP_HOSTS, { parallel: 50, timeoutMs: 30_000 });
  await warmUpHosts.stop();
  const deadline = Date.now() + 10_000;
  while ((await router.stats(false)).online > 0) {
    if (Date.now() > deadline) throw new Error("warm-up hosts still registered 10 s after they were killed");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function measureIdleMemory(cleanup: Cleanup): Promise<Figure[]> {
  const router = await startRouterProcess({ dataDir: tempDir(cleanup, "memory") }, cleanup);
  await warmUp(router, cleanup);
  const idle = await router.stats(true);
  const hosts = startSimHosts(cleanup);

  const connect = async (count: number) => {
    const started = performance.now();
    await hosts.connect(router.nodeUrl, BENCH_SECRET, count, {
      parallel: HANDSHAKES_IN_FLIGHT,
      timeoutMs: 120_000,
    });
    return Math.round(count / ((performance.now() - started) / 1000));
  };
  const rate1k = await connect(1000);
  const at1k = await router.stats(true);
  const rate10k = await connect(9000);
  const at10k = await router.stats(true);
  await router.kill();
  await hosts.stop();

  const perHost = (bytes: number, n: number) => round(bytes / n / KiB, 1);
  const registered = `registered at ${rate1k} and ${rate10k} hosts/s, ${HANDSHAKES_IN_FLIGHT} handshakes in flight`;
  return [
    info("router RSS, no hosts (after warm-up)", round(idle.rssBytes / MiB, 1), "MiB"),
    info("router RSS, 1,000 idle hosts", round(at1k.rssBytes / MiB, 1), "MiB", `${at1k.online} registered`),
    info(
      "router RSS, 10,000 idle hosts",
      round(at10k.rssBytes / MiB, 1),
      "MiB",
      `${at10k.online} registered; ${registered}`,
    ),
    info("RSS per idle host, 1,000 hosts", perHost(at1k.rssBytes - idle.rssBytes, at1k.online), "KiB"),
    atMost(
      "RSS per idle host, 10,000 hosts",
      perHost(at10k.rssBytes - idle.rssBytes, at10k.online),
      "KiB",
      20,
    ),
    info(
      "JS heap per idle host, 10,000 hosts",
      perHost(at10k.heapUsedBytes - idle.heapUsedBytes, at10k.online),
      "KiB",
    ),
  ];
}
