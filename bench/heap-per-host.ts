import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Cleanup } from "./cleanup.ts";
import { IpcChild } from "./ipc-child.ts";
import { BENCH_SECRET, type RouterCommand, type RouterReport } from "./router-control.ts";
import { startSimHosts } from "./sim-control.ts";
import { tempDir } from "./temp-dir.ts";

// Diagnostic (not a bench part): what one idle registered host costs the router's JS heap, by
// constructor. Takes a heap snapshot of a real router process (bench/router-process.ts) with no
// hosts (after a warm-up) and again with N idle simulated hosts, and prints the difference of
// self sizes and object counts per (type, name), divided by N. Also prints RSS, the V8 heap (used,
// committed, per space) and external memory at both points, per host: what of RSS is not the heap.
//   node --import tsx bench/heap-per-host.ts [hosts=2000] [snapshot dir=/tmp/heap-per-host]
// HEAP_SNAPSHOTS=0: the figures only. HEAP_SMAPS=1: /proc/<router>/smaps at both points, into the dir.

const hosts = Number(process.argv[2] ?? 2000);
const dir = process.argv[3] ?? "/tmp/heap-per-host";
/** HEAP_SNAPSHOTS=0: only the memory figures (a snapshot of 10,000 hosts takes a while to read). */
const takeSnapshots = process.env.HEAP_SNAPSHOTS !== "0";
mkdirSync(dir, { recursive: true });

interface Tally {
  count: number;
  bytes: number;
}

/** Self size and count per "type:name" of every node in a .heapsnapshot. */
function tallySnapshot(file: string): Map<string, Tally> {
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const tallies = new Map<string, Tally>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] ?? 0] ?? "?";
    const rawName = strings[nodes[i + nameAt] ?? 0] ?? "";
    // Strings and code are named by their contents: one bucket per type is what helps.
    const name = type === "object" || type === "closure" || type === "native" ? rawName.slice(0, 60) : "";
    const key = `${type}:${name}`;
    const tally = tallies.get(key) ?? { count: 0, bytes: 0 };
    tally.count++;
    tally.bytes += nodes[i + sizeAt] ?? 0;
    tallies.set(key, tally);
  }
  return tallies;
}

function complete(path: string): boolean {
  const size = statSync(path).size;
  if (size < 2) return false;
  const tail = Buffer.alloc(2);
  const fd = openSync(path, "r");
  readSync(fd, tail, 0, 2, size - 2);
  closeSync(fd);
  return tail.toString() === "]}";
}

const MiB = 2 ** 20;

/** The router's memory after a full GC: RSS, the V8 heap used and committed, external, and anonymous RSS. */
async function memory(router: IpcChild<RouterCommand, RouterReport>, label: string) {
  const stats = await router.request({ type: "stats", gc: true }, "stats", 60_000);
  const status = readFileSync(`/proc/${router.pid}/status`, "utf8");
  if (process.env.HEAP_SMAPS)
    writeFileSync(join(dir, `smaps-${stats.online}`), readFileSync(`/proc/${router.pid}/smaps`));
  const anon = Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  const figures = {
    rss: stats.rssBytes,
    anon,
    heapUsed: stats.heapUsedBytes,
    heapTotal: stats.heapTotalBytes,
    external: stats.externalBytes,
  };
  const show = Object.entries(figures).map(([name, bytes]) => `${name} ${(bytes / MiB).toFixed(1)} MiB`);
  console.log(`${label}: ${stats.online} online; ${show.join(", ")}`);
  const spaces = Object.entries(stats.heapSpaces).map(
    ([name, [size, used]]) => `${name} ${(size / MiB).toFixed(1)}/${(used / MiB).toFixed(1)}`,
  );
  console.log(`  V8 spaces, committed/used MiB: ${spaces.join(", ")}`);
  return figures;
}

async function snapshot(router: IpcChild<RouterCommand, RouterReport>, label: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(router.pid ?? 0, "SIGUSR2");
  // The snapshot is written synchronously on the router's loop: a stats answer comes after it.
  const stats = await router.request({ type: "stats", gc: false }, "stats", 300_000);
  let file: string | undefined;
  while (!file) {
    file = readdirSync(dir).find((name) => !before.has(name) && name.endsWith(".heapsnapshot"));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const path = join(dir, file);
  // Written in pieces: complete when its JSON closes.
  while (!complete(path)) await new Promise((resolve) => setTimeout(resolve, 500));
  console.log(`${label}: ${stats.online} online → ${path}`);
  return path;
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  try {
    const router = IpcChild.start<RouterCommand, RouterReport>(
      new URL("./router-process.ts", import.meta.url),
      {
        name: "router process",
        nodeArgs: ["--expose-gc", "--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`],
        env: { BENCH_ROUTER_SETTINGS: JSON.stringify({ dataDir: tempDir(cleanup, "heap") }) },
      },
    );
    cleanup.add(() => router.kill());
    const ready = await router.next("ready", 30_000);
    const warmUp = startSimHosts(cleanup);
    await warmUp.connect(ready.nodeUrl, BENCH_SECRET, 50, { parallel: 50, timeoutMs: 30_000 });
    await warmUp.stop();
    while ((await router.request({ type: "stats", gc: false }, "stats", 10_000)).online > 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const idle = await memory(router, "no hosts");
    const empty = takeSnapshots ? await snapshot(router, "no hosts") : "";
    const sims = startSimHosts(cleanup);
    await sims.connect(ready.nodeUrl, BENCH_SECRET, hosts, { parallel: 200, timeoutMs: 120_000 });
    const full = await memory(router, `${hosts} hosts`);
    const perHost = Object.entries(full).map(
      ([name, bytes]) => `${name} ${((bytes - idle[name as keyof typeof idle]) / hosts / 1024).toFixed(1)}`,
    );
    console.log(`per host (KiB): ${perHost.join(", ")}`);
    if (!takeSnapshots) return;
    const snapshotFull = await snapshot(router, `${hosts} hosts`);
    const a = tallySnapshot(empty);
    const b = tallySnapshot(snapshotFull);
    const rows = [...b].map(([key, tally]) => {
      const was = a.get(key) ?? { count: 0, bytes: 0 };
      return {
        key,
        perHost: (tally.bytes - was.bytes) / hosts,
        countPerHost: (tally.count - was.count) / hosts,
      };
    });
    rows.sort((x, y) => y.perHost - x.perHost);
    const total = rows.reduce((sum, row) => sum + row.perHost, 0);
    console.log(`self size per host, all types: ${total.toFixed(0)} B`);
    for (const row of rows.slice(0, 40))
      console.log(
        `${row.perHost.toFixed(0).padStart(7)} B ${row.countPerHost.toFixed(2).padStart(7)}×  ${row.key}`,
      );
  } finally {
    await cleanup.runAll();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
