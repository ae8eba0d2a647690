import type { Cleanup } from "./cleanup.ts";
import { IpcChild } from "./ipc-child.ts";

// The bench's side of bench/router-process.ts: a real router in its own process, so its RSS
// and event-loop delay are its own and it can be killed and restarted like a deployment.

export const BENCH_SECRET = "bench-secret-0123456789";

/** Router settings the bench varies; everything else is the router's default. */
export interface RouterSettings {
  dataDir: string;
  port?: number;
  heartbeatIntervalS?: number;
  heartbeatTimeoutS?: number;
  /** Seed the node table with sim-0 … sim-(n-1), paired with their keys (sim-keys.ts). */
  pairedHosts?: number;
}

export interface LoopDelay {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
}

export type RouterCommand =
  | { type: "stats"; gc: boolean }
  /** With `chatProbe`, a chat message to that node's owner every CHAT_PROBE_MS until `count` are online. */
  | { type: "await-online"; count: number; chatProbe?: string };

export type RouterReport =
  | { type: "ready"; nodeUrl: string; port: number; readyAt: number }
  | {
      type: "stats";
      rssBytes: number;
      heapUsedBytes: number;
      /** The V8 heap's pages (used or not) and memory held outside it (Buffers): the rest of RSS is native. */
      heapTotalBytes: number;
      externalBytes: number;
      /** Each V8 heap space's committed and used bytes. */
      heapSpaces: Record<string, [number, number]>;
      online: number;
      loopDelay: LoopDelay;
      /** A chat probe's samples, when one was still running (the storm did not finish): it stops. */
      chatMs?: number[];
    }
  | { type: "online"; count: number; at: number; loopDelay: LoopDelay; chatMs?: number[] };

export interface RouterProcess {
  readonly nodeUrl: string;
  readonly port: number;
  /** Epoch ms at which it was listening. */
  readonly readyAt: number;
  /** RSS and heap after an optional full GC; event-loop delay since it started listening. */
  stats(gc: boolean): Promise<Extract<RouterReport, { type: "stats" }>>;
  /** Resolves when `count` nodes are registered (at once if they already are). */
  awaitOnline(
    count: number,
    timeoutMs: number,
    chatProbe?: string,
  ): Promise<Extract<RouterReport, { type: "online" }>>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startRouterProcess(settings: RouterSettings, cleanup: Cleanup): Promise<RouterProcess> {
  const child = IpcChild.start<RouterCommand, RouterReport>(new URL("./router-process.ts", import.meta.url), {
    name: "router process",
    nodeArgs: ["--expose-gc"],
    env: { BENCH_ROUTER_SETTINGS: JSON.stringify(settings) },
  });
  cleanup.add(() => child.kill());
  const ready = await child.next("ready", 30_000);
  return {
    nodeUrl: ready.nodeUrl,
    port: ready.port,
    readyAt: ready.readyAt,
    stats: (gc) => child.request({ type: "stats", gc }, "stats", 30_000),
    awaitOnline: (count, timeoutMs, chatProbe) =>
      child.request(
        { type: "await-online", count, ...(chatProbe ? { chatProbe } : {}) },
        "online",
        timeoutMs,
      ),
    kill: (signal) => child.kill(signal),
  };
}
