import type { Cleanup } from "./cleanup.ts";
import { IpcChild } from "./ipc-child.ts";

// The bench's side of bench/flood-client.ts: one attacker address flooding the router from a
// process of its own, so the router's process spends nothing on the attacker's sockets but what
// the router itself spends.

/** What each attacking connection does once connected: nothing, a WebSocket upgrade and nothing, half a request. */
export type Hold = "idle" | "upgrade" | "half-request";

export interface FloodSettings {
  port: number;
  /** The attacker's source address (a 127/8 one: Linux routes them all to loopback). */
  localAddress: string;
  /** Connections it tries to hold at once; each one the router drops is opened again. */
  size: number;
  holds: Hold[];
  /** Named in the upgrades, so they pass the router's node check (the attacker knows a real name). */
  nodeId: string;
  /** Pause before a dropped connection is opened again. */
  reopenMs: number;
}

export interface FloodCounters {
  /** Connections attempted since the flood started. */
  attempts: number;
  /** Closed with nothing answered: dropped the moment the router accepted them (or reset). */
  refused: number;
  /** Upgraded to a WebSocket (HTTP 101). */
  upgraded: number;
  /** Answered 408 (a request head not sent in time). */
  timedOut: number;
  /** Connected and not closed right now. */
  open: number;
  /** The longest an upgraded connection lived after its 101, in ms. */
  longestUpgradedMs: number;
  /** By what it held: the longest a connection the router let in (answered) lived before it closed, in ms. */
  longestHeldMs: Record<Hold, number>;
}

export type FloodCommand =
  | { type: "start"; settings: FloodSettings }
  | { type: "counters" }
  | { type: "stop" };
export type FloodReport =
  | { type: "started" }
  | { type: "counters"; counters: FloodCounters }
  | { type: "stopped" };

export interface FloodClient {
  start(settings: FloodSettings): Promise<void>;
  counters(): Promise<FloodCounters>;
  stop(): Promise<void>;
}

export function startFloodClient(cleanup: Cleanup): FloodClient {
  const child = IpcChild.start<FloodCommand, FloodReport>(new URL("./flood-client.ts", import.meta.url), {
    name: "flood client",
  });
  cleanup.add(() => child.kill());
  return {
    start: async (settings) => {
      await child.request({ type: "start", settings }, "started", 10_000);
    },
    counters: async () => (await child.request({ type: "counters" }, "counters", 10_000)).counters,
    stop: async () => {
      await child.request({ type: "stop" }, "stopped", 10_000);
    },
  };
}
