import { isLoopbackHost, type Logger } from "@phonework/runtime";
import type { RouterConfig } from "../config/router-config.ts";
import type { BackpressurePolicy, HeartbeatPolicy } from "./node-connection.ts";

// What the config says about node connections: heartbeats, backpressure, the handshake's limits,
// and whether the shared secret admits hosts at all.

export interface LinkPolicy {
  heartbeat: HeartbeatPolicy;
  backpressure: BackpressurePolicy;
  handshakeTimeoutMs: number;
  maxPayloadBytes: number;
}

export function linkPolicy(config: RouterConfig): LinkPolicy {
  return {
    heartbeat: {
      intervalMs: config.HEARTBEAT_INTERVAL_S * 1000,
      timeoutMs: config.HEARTBEAT_TIMEOUT_S * 1000,
    },
    backpressure: {
      maxPending: config.MAX_NODE_PENDING,
      slowSocketBytes: config.SLOW_SOCKET_BYTES,
      slowSocketMs: config.SLOW_SOCKET_S * 1000,
    },
    handshakeTimeoutMs: config.HANDSHAKE_TIMEOUT_S * 1000,
    maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
  };
}

/** The shared secret admits hosts only where nobody but this machine can reach the router. */
export function sharedSecret(config: RouterConfig, logger: Logger): string | undefined {
  const secret =
    config.ROUTER_SECRET && isLoopbackHost(config.ROUTER_HOST) ? config.ROUTER_SECRET : undefined;
  if (config.ROUTER_SECRET && !secret)
    logger.warn(
      { ROUTER_HOST: config.ROUTER_HOST },
      "ROUTER_SECRET is ignored on a router that is not bound to loopback: hosts must pair (/pair <name>)",
    );
  return secret;
}
