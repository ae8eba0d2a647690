import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";

// The router's HTTP(S) server, built here rather than by fastify so the limits that must be given
// at creation are: how often Node looks for requests past their timeouts (every 30 s by default,
// so a 10 s headersTimeout fired anywhere between 10 and 40 s), and how long a TLS handshake may
// take (120 s by default: a connection that never sends its ClientHello was held that long).

export interface HttpLimits {
  /** A connection that has not sent a whole request head by then gets 408 and is closed. */
  headersTimeoutMs: number;
  /** The same for the whole request, body included. */
  requestTimeoutMs: number;
  /** Open connections at most (server.maxConnections); undefined: no limit. */
  maxConnections: number | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A fastify `serverFactory`: the server, with `limits`, TLS when `tls` is given, and `setUp` run on it. */
export function serverFactory(
  limits: HttpLimits,
  tls: { cert: Buffer; key: Buffer } | undefined,
  setUp: (server: Server) => void,
): (handler: Handler) => Server {
  return (handler) => {
    const options = {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // A quarter of the head's timeout, so it fires within 25% of itself; at most once a second.
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
    };
    const server = tls
      ? createHttpsServer({ ...options, ...tls, handshakeTimeout: limits.headersTimeoutMs }, handler)
      : createHttpServer(options, handler);
    if (limits.maxConnections !== undefined) server.maxConnections = limits.maxConnections;
    setUp(server);
    return server;
  };
}

/** http(s)://host:port of a listening server; a wildcard address is reached on loopback. */
export function listenUrl(
  server: { address(): ReturnType<Server["address"]> },
  where: { ROUTER_HOST: string; ROUTER_PORT: number },
  tls: boolean,
): string {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : where.ROUTER_PORT;
  const host =
    where.ROUTER_HOST === "0.0.0.0" || where.ROUTER_HOST === "::" ? "127.0.0.1" : where.ROUTER_HOST;
  return `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
