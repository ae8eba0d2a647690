import type { IncomingMessage, Server } from "node:http";
import websocket from "@fastify/websocket";
import { CloseCode } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import { type WebSocket, WebSocketServer } from "ws";
import { HandshakeAdmission } from "./handshake-admission.ts";
import { HandshakeThrottle } from "./handshake-throttle.ts";
import { type NodeSockets, nodeHandshakeJudge } from "./node-endpoint.ts";
import { UpgradeGate, type UpgradeJudge } from "./upgrade-gate.ts";

/**
 * The WebSocket side of the router's HTTP server: every upgrade is judged by the gate first
 * (path, secret or a node the router expects, handshake rate, closing); the console's admitted
 * upgrades go on to @fastify/websocket, node upgrades to a WebSocket server of their own.
 * Node sockets skip the web framework because of what it keeps: a route builds a request, a reply
 * and a ServerResponse for each upgrade, and the plugin holds them (its error listener closes over
 * request and reply; the response stays the TCP socket's message) for as long as the socket lives —
 * about 2 KiB of the router's memory per idle host, ten thousand of them after a restart. Nothing
 * of the framework's is used on the way: the gate has judged the upgrade, and the node socket
 * reads what it needs (secret, named node, TCP socket) from the request once.
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
): NodeSockets {
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
    (request, socket, head, emit) => {
      if (otherEndpoint(request)) emit();
      else
        admission.schedule(() => {
          if (socket.destroyed) return; // gone while it waited for its turn
          admission.started(socket);
          nodeServer.handleUpgrade(request, socket, head, (node) => accept(node, request));
        });
    },
  );
  const wsOptions = { maxPayload: options.maxPayloadBytes, perMessageDeflate: false };
  const nodeServer = new WebSocketServer({ ...wsOptions, noServer: true });
  let accept = (socket: WebSocket, _request: IncomingMessage) => socket.terminate();
  gate.attach(app.server);
  const restarting = (server: WebSocketServer, done: () => void) => {
    for (const client of server.clients) client.close(CloseCode.SERVICE_RESTART, "router restarting");
    server.close(() => done());
  };
  app.register(websocket, {
    // The plugin only listens for 'upgrade' on this "server": it gets what the gate admits.
    options: { ...wsOptions, server: gate as unknown as Server },
    preClose(done) {
      restarting(this.websocketServer, done);
    },
  });
  app.addHook("preClose", (done) => restarting(nodeServer, done));
  return {
    admission,
    serve: (handler) => {
      accept = handler;
    },
  };
}
