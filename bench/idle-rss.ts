import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Cleanup } from "./cleanup.ts";
import { startProgram } from "./program-process.ts";

// Resident memory of the installed programs at rest: a headless router, a host registered with
// it, and a standalone whose stdin is a pipe left open (so it waits for a first line). Each is
// read from /proc SETTLE_MS after it has said it is ready; each program is started RUNS times (V8
// collects at moments of its own, so one reading varies by a few MiB). The first start is read once
// more at LATER_MS: by then V8 has usually given back the heap start-up left behind.

const SECRET = "bench-install-secret-0123456789";
const READY_TIMEOUT_MS = 30_000;
export const SETTLE_MS = 3_000;
export const LATER_MS = 20_000;
const RUNS = 3;

type Program = "router" | "host" | "standalone";

export interface IdleRss {
  /** Bytes SETTLE_MS after ready, one reading per start, lowest first. */
  settled: Record<Program, number[]>;
  /** Bytes LATER_MS after ready, first start only. */
  later: Record<Program, number>;
}

interface Programs {
  bin: string;
  env: Record<string, string>;
  cwd: string;
  dataDir: (name: string) => string;
}

export async function measureIdleRss(programs: Programs, cleanup: Cleanup): Promise<IdleRss> {
  const settled: IdleRss["settled"] = { router: [], host: [], standalone: [] };
  const later: IdleRss["later"] = { router: 0, host: 0, standalone: 0 };
  for (let run = 0; run < RUNS; run++) {
    const readAgain = run === 0;
    const pair = await routerAndHost(programs, readAgain, cleanup);
    settled.router.push(pair.router.settled);
    settled.host.push(pair.host.settled);
    const alone = await standalone(programs, readAgain, cleanup);
    settled.standalone.push(alone.settled);
    if (readAgain) {
      later.router = pair.router.later;
      later.host = pair.host.later;
      later.standalone = alone.later;
    }
  }
  for (const readings of Object.values(settled)) readings.sort((a, b) => a - b);
  return { settled, later };
}

interface Readings {
  settled: number;
  later: number;
}

async function routerAndHost(
  { bin, env, cwd, dataDir }: Programs,
  readAgain: boolean,
  cleanup: Cleanup,
): Promise<Record<"router" | "host", Readings>> {
  // Port 0 and the address from its "router listening" line: no port is picked then hoped free.
  const router = startProgram(
    bin,
    ["router", "--data-dir", dataDir("router")],
    {
      cwd,
      env: { ...env, CHAT: "none", ROUTER_SECRET: SECRET, ROUTER_HOST: "127.0.0.1", ROUTER_PORT: "0" },
    },
    cleanup,
  );
  // stderr is a pipe, so the router logs JSON lines there.
  const log = await router.waitForOutput("stderr", /"msg":"router listening"/, READY_TIMEOUT_MS);
  const url = /"url":"http:\/\/([^"]+)"/.exec(log)?.[1];
  if (!url) throw new Error(`no address in the router's "router listening" line: ${log}`);
  const host = startProgram(
    bin,
    ["host", "--data-dir", dataDir("host")],
    { cwd, env: { ...env, ROUTER_URL: `ws://${url}/ws/node`, ROUTER_SECRET: SECRET } },
    cleanup,
  );
  await host.waitForOutput("stderr", /"msg":"registered with router"/, READY_TIMEOUT_MS);
  const readings = await readRss({ router: router.pid, host: host.pid }, readAgain);
  await host.stop();
  await router.stop();
  return readings;
}

async function standalone(
  { bin, env, cwd, dataDir }: Programs,
  readAgain: boolean,
  cleanup: Cleanup,
): Promise<Readings> {
  const dir = dataDir("standalone");
  const program = startProgram(
    bin,
    ["standalone", "--data-dir", dir],
    { cwd, env, stdinPipe: true },
    cleanup,
  );
  // On a pipe it prints no prompt; its log file says when it is ready.
  const log = join(dir, "logs", "phonework.log");
  await waitForFile(log, /"msg":"standalone ready"/, () => program.running, READY_TIMEOUT_MS);
  const { standalone: readings } = await readRss({ standalone: program.pid }, readAgain);
  program.endInput();
  await program.exited;
  return readings;
}

/**
 * VmRSS of each process SETTLE_MS from now, and LATER_MS from now when asked (else 0). The waits
 * are the idle periods themselves, not waits for readiness: each program has said it is ready.
 */
async function readRss<K extends string>(
  pids: Record<K, number>,
  readAgain: boolean,
): Promise<Record<K, Readings>> {
  const started = Date.now();
  const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, started + ms - Date.now()));
  const entries = Object.entries(pids) as Array<[K, number]>;
  await until(SETTLE_MS);
  const settled = entries.map(([, pid]) => rss(pid));
  if (readAgain) await until(LATER_MS);
  return Object.fromEntries(
    entries.map(([name, pid], i) => [name, { settled: settled[i] ?? 0, later: readAgain ? rss(pid) : 0 }]),
  ) as Record<K, Readings>;
}

function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (!kib) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kib) * 1024;
}

async function waitForFile(
  path: string,
  pattern: RegExp,
  running: () => boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (pattern.test(readFileSync(path, "utf8"))) return;
    } catch {
      // Not written yet.
    }
    if (!running()) throw new Error(`exited before ${pattern} appeared in ${path}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} in ${path} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
