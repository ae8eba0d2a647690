import type { IncomingMessage, Server } from "node:http";
import websocket from "@fastify/websocket";
import { CloseCode } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import { HandshakeAdmission } from "./handshake-admission.ts";
import { HandshakeThrottle } from "./handshake-throttle.ts";
import { nodeHandshakeJudge } from "./node-endpoint.ts";
import { UpgradeGate, type UpgradeJudge } from "./upgrade-gate.ts";

/**
 * The WebSocket side of the router's HTTP server: every upgrade is judged by the gate first
 * (path, secret or a node the router expects, handshake rate, closing), and only what it admits
 * reaches @fastify/websocket.
 * Admitted node upgrades start at most HANDSHAKES_PER_TURN per turn of the event loop, and at most
 * MAX_HANDSHAKES_IN_FLIGHT are between upgrade and registration (the admission returned, which the
 * endpoint tells of each registration).
 * On close, hosts are told the router is restarting (not gone), so they reconnect to the next one.
 */
export function attachNodeWebSocket(
  app: FastifyInstance,
  options: {
    secret: string | undefined;
    maxHandshakesPerS: number;
    maxPayloadBytes: number;
    closing: () => boolean;
    /** Whether a host naming this node id may try its key (see NodeStore.expectsNode). */
    expectsNode: (nodeId: string) => boolean;
    /** The client behind a request, for the logs. */
    clientOf: (request: IncomingMessage) => string | undefined;
    now: () => number;
    /** The judges of the router's other WebSocket endpoints (the console's), by path. */
    endpoints?: ReadonlyMap<string, UpgradeJudge>;
  },
  logger: Logger,
): HandshakeAdmission {
  const admission = new HandshakeAdmission();
  const nodeJudge = nodeHandshakeJudge(
    {
      secret: options.secret,
      throttle: new HandshakeThrottle(options.maxHandshakesPerS),
      admission,
      closing: options.closing,
      expectsNode: options.expectsNode,
      clientOf: options.clientOf,
      now: options.now,
    },
    logger,
  );
  const otherEndpoint = (request: IncomingMessage) =>
    options.endpoints?.get(request.url?.split("?")[0] ?? "");
  const gate = new UpgradeGate(
    (request) => {
      const other = otherEndpoint(request);
      return other ? other(request) : nodeJudge(request);
    },
    (request, start) => {
      if (otherEndpoint(request)) start();
      else
        admission.schedule(() => {
          admission.started(request.socket);
          start();
        });
    },
  );
  gate.attach(app.server);
  app.register(websocket, {
    options: {
      maxPayload: options.maxPayloadBytes,
      perMessageDeflate: false,
      // The plugin only listens for 'upgrade' on this "server": it gets what the gate admits.
      server: gate as unknown as Server,
    },
    preClose(done) {
      for (const client of this.websocketServer.clients)
        client.close(CloseCode.SERVICE_RESTART, "router restarting");
      this.websocketServer.close(() => done());
    },
  });
  return admission;
}
