import type { Cleanup } from "./cleanup.ts";
import { IpcChild } from "./ipc-child.ts";
import type { SimCounters } from "./sim-host.ts";

// The bench's side of bench/sim-hosts.ts: thousands of simulated hosts in a process of their own,
// so the router's process holds only the router.

export type SimCommand =
  | { type: "connect"; url: string; secret?: string; count: number; parallel: number }
  | { type: "counters"; reset: boolean };

export type SimReport =
  | { type: "connected"; online: number; total: number }
  | { type: "counters"; counters: SimCounters; online: number; total: number };

export interface SimHosts {
  /**
   * Adds `count` hosts (at most `parallel` handshakes at a time) and resolves once each has
   * registered: with the shared secret, or without one as paired hosts (sim-keys.ts).
   */
  connect(
    url: string,
    secret: string | undefined,
    count: number,
    options: { parallel: number; timeoutMs: number },
  ): Promise<void>;
  /** The counters since the last reset; `reset` starts them again from zero. */
  counters(reset: boolean): Promise<Extract<SimReport, { type: "counters" }>>;
  stop(): Promise<void>;
}

export function startSimHosts(cleanup: Cleanup): SimHosts {
  const child = IpcChild.start<SimCommand, SimReport>(new URL("./sim-hosts.ts", import.meta.url), {
    name: "simulated hosts",
  });
  cleanup.add(() => child.kill());
  return {
    async connect(url, secret, count, { parallel, timeoutMs }) {
      const command = { type: "connect" as const, url, count, parallel, ...(secret ? { secret } : {}) };
      await child.request(command, "connected", timeoutMs);
    },
    counters: (reset) => child.request({ type: "counters", reset }, "counters", 10_000),
    stop: () => child.kill(),
  };
}
