import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "@phonework/runtime";
import type { RouterConfig } from "../config/router-config.ts";
import { ConnectionCaps } from "./connection-caps.ts";
import { ConnectionPacer, PACER_DEFAULTS, type PacerLimits } from "./connection-pacer.ts";
import { serverFactory } from "./http-server.ts";
import { defaultMaxConnections, openFilesLimit } from "./open-files-limit.ts";
import { REFUSAL_LOG_DEFAULTS, RefusalLog } from "./refusal-log.ts";
import { clientAddress, fastifyTrustProxy, proxyMatcher } from "./trust-proxy.ts";

// Everything that stands between the internet and the router before anyone has proved who they
// are: the HTTP server's timeouts and connection limit, the per-address cap on connections nobody
// vouched for, and who counts as a proxy. One script from one address can no longer take every
// file descriptor: it gets MAX_CONNECTIONS_PER_ADDRESS of them, each for a few seconds at most.

/** A refused connection's Retry-After is drawn from 1..this many seconds, so they do not all return together. */
const RETRY_AFTER_SPREAD_S = 5;

export interface FrontDoor {
  /** For fastify: builds the server with the limits and the cap attached. */
  readonly serverFactory: ReturnType<typeof serverFactory>;
  /** For fastify: whose X-Forwarded-For `request.ip` believes. */
  readonly trustProxy: boolean | string[];
  readonly caps: ConnectionCaps;
  /** The connection under `socket` proved who it is: it stops counting against its address. */
  vouch(socket: Socket): void;
  /** The client behind a request: its peer, or the address a trusted proxy forwarded. */
  clientOf(request: IncomingMessage): string | undefined;
}

export interface FrontDoorDeps {
  logger: Logger;
  now: () => number;
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** How fast new connections are read (default PACER_DEFAULTS). */
  pacer?: PacerLimits;
  /** The process's open-files limit (default: read from /proc/self/limits). */
  openFiles?: () => number | undefined;
}

export function createFrontDoor(config: RouterConfig, deps: FrontDoorDeps): FrontDoor {
  const { logger, now } = deps;
  const trusted = proxyMatcher(config.TRUST_PROXY);
  const overCap = new RefusalLog(
    logger,
    "connection refused: too many unauthenticated connections from one address",
    { ...REFUSAL_LOG_DEFAULTS, now },
  );
  const dropped = new RefusalLog(logger, "connection dropped: the router is at MAX_CONNECTIONS", {
    ...REFUSAL_LOG_DEFAULTS,
    now,
  });
  const caps = new ConnectionCaps({
    maxPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
    exempt: trusted,
    onRefused: (address) => overCap.refused(address, { limit: config.MAX_CONNECTIONS_PER_ADDRESS }),
  });
  const openFiles = deps.openFiles ?? (() => openFilesLimit());
  const maxConnections = config.MAX_CONNECTIONS ?? defaultMaxConnections(openFiles());
  const busy = new RefusalLog(logger, "connection refused: too many connections waiting to be read", {
    ...REFUSAL_LOG_DEFAULTS,
    now,
  });
  const pacer = new ConnectionPacer(deps.pacer ?? PACER_DEFAULTS, {
    now,
    exempt: trusted,
    retryAfter: () => String(1 + Math.floor(Math.random() * RETRY_AFTER_SPREAD_S)),
    onRefused: (address, why) => busy.refused(address, { why }),
  });
  const setUp = (server: Server) => {
    // The pacer first: the cap (prepended) then runs before it, on every connection accepted.
    pacer.attach(server);
    caps.attach(server);
    server.on("drop", (data?: { remoteAddress?: string }) =>
      dropped.refused(data?.remoteAddress, { maxConnections }),
    );
  };
  logger.debug(
    {
      maxConnections: maxConnections ?? "unlimited",
      perAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
      trustProxy: config.TRUST_PROXY.kind,
    },
    "front door limits",
  );
  return {
    serverFactory: serverFactory(
      {
        headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_S * 1000,
        requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_S * 1000,
        maxConnections,
      },
      deps.tls,
      setUp,
    ),
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    caps,
    vouch: (socket) => caps.vouch(socket),
    clientOf: (request) =>
      clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trusted),
  };
}
