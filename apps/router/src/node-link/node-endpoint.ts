import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { NODE_ID_HEADER } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { bearerMatches, TurnWrites } from "@phonework/runtime";
import type { WebSocket } from "ws";
import { REFUSAL_LOG_DEFAULTS, RefusalLog } from "../front-door/refusal-log.ts";
import { type HandshakeAdmission, spreadRetryAfter } from "./handshake-admission.ts";
import type { HandshakeThrottle } from "./handshake-throttle.ts";
import { acceptNodeSocket, type NodeSocketContext } from "./node-socket.ts";
import type { UpgradeJudge } from "./upgrade-gate.ts";

export interface NodeEndpointOptions {
  /** The shared secret, only when this router accepts it (bound to loopback). */
  secret: string | undefined;
  throttle: HandshakeThrottle;
  /** The bound on handshakes in flight (and per turn, applied by the gate). */
  admission: HandshakeAdmission;
  /** True once the router is shutting down: new hosts are sent to try again (to the next instance). */
  closing: () => boolean;
  /** Whether a host naming this node id may try its key: paired and not revoked, or a join code waiting. */
  expectsNode: (nodeId: string) => boolean;
  /** The client behind a request (its peer, or what a trusted proxy forwarded), for the logs. */
  clientOf: (request: IncomingMessage) => string | undefined;
  now: () => number;
}

/** Where hosts connect. */
export const NODE_PATH = "/ws/node";

const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The node id an upgrade names in NODE_ID_HEADER, if it is one (a repeated header is not). */
export function namedNode(request: IncomingMessage): string | undefined {
  const value = request.headers[NODE_ID_HEADER];
  return typeof value === "string" && NODE_ID.test(value) ? value : undefined;
}

/** Node sockets, and the handshakes admitted on their way to becoming one. */
export interface NodeSockets {
  /** Told each registration by the endpoint (serveNodeSockets). */
  readonly admission: HandshakeAdmission;
  /** Where each upgraded node socket goes, with the upgrade request that opened it. */
  serve(accept: (socket: WebSocket, request: IncomingMessage) => void): void;
}

/**
 * /ws/node: hosts connect here, once `nodeHandshakeJudge` has let them through. `vouch` is told a
 * connection whose node registered: it no longer counts as a stranger's.
 */
export function serveNodeSockets(
  sockets: NodeSockets,
  ctx: NodeSocketContext,
  secret: string | undefined,
  vouch: (socket: Socket) => void = () => {},
): void {
  const { admission } = sockets;
  // One for every socket: a closure per socket would be kept as long as the socket.
  const paceRegistration = (register: () => void) => admission.scheduleRegistration(register);
  // One for every socket too: the sockets written to in a turn are uncorked together at its end.
  const writes = new TurnWrites();
  sockets.serve((socket, request) => {
    const viaSecret = secret !== undefined && bearerMatches(request.headers.authorization, secret);
    // The TCP socket, not the request: the upgrade request (headers and all) is garbage once read.
    const tcp = request.socket;
    acceptNodeSocket(socket, ctx, {
      viaSecret,
      namedNode: namedNode(request),
      onRegistered: () => {
        admission.release(tcp);
        vouch(tcp);
      },
      paceRegistration,
      tcp,
      writes,
    });
  });
}

/**
 * Judges every upgrade request the router gets: anything but /ws/node gets 404; a bearer secret
 * that is wrong, or presented to a router that takes none (a public one: hosts pair there), gets
 * HTTP 401; without a secret, a host must name a node this router expects (NODE_ID_HEADER), else
 * 401 — strangers never reach a socket or the handshake rate; a handshake storm past the rate or
 * past the handshakes in flight (handshake-admission.ts), or a router that is shutting down, gets
 * 503 + Retry-After (1–5 s, spread). A paired host presents no secret: it
 * proves its key inside the socket. Each kind of refusal is logged once per address.
 */
export function nodeHandshakeJudge(options: NodeEndpointOptions, logger: Logger): UpgradeJudge {
  const log = (message: string) =>
    new RefusalLog(logger, message, { ...REFUSAL_LOG_DEFAULTS, now: options.now });
  const proxiedSecret = log("node connection refused: shared secret through a proxy");
  const wrongSecret = log("node connection refused: wrong or unaccepted secret");
  const unknownNode = log("node connection refused: no such node is paired or waiting to join");
  return (request) => {
    // Default deny: every path but the console's (judged by its own) comes here, and an exact
    // match leaves no spelling of the path (percent-encoded, doubled slashes) that reaches it unjudged.
    if (request.url?.split("?")[0] !== NODE_PATH)
      return { status: 404, error: "NOT_FOUND", message: `WebSocket connections go to ${NODE_PATH}` };
    const bearer = request.headers.authorization;
    // Through a reverse proxy the "loopback" peer is the proxy: the caller is on the internet.
    const proxied =
      request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined;
    if (bearer !== undefined && proxied) {
      proxiedSecret.refused(options.clientOf(request));
      return {
        status: 401,
        error: "UNAUTHORIZED",
        message: "the shared secret is not accepted through a proxy",
      };
    }
    if (bearer !== undefined && (options.secret === undefined || !bearerMatches(bearer, options.secret))) {
      wrongSecret.refused(options.clientOf(request));
      const message = options.secret
        ? "wrong bearer secret"
        : "this router takes no shared secret: pair the host with a join code";
      return { status: 401, error: "UNAUTHORIZED", message };
    }
    if (bearer === undefined) {
      const nodeId = namedNode(request);
      if (nodeId === undefined || !options.expectsNode(nodeId)) {
        const header = request.headers[NODE_ID_HEADER];
        unknownNode.refused(options.clientOf(request), {
          nodeId: typeof header === "string" ? header.slice(0, 64) : undefined,
        });
        return {
          status: 401,
          error: "UNAUTHORIZED",
          message:
            nodeId === undefined
              ? `name the node in ${NODE_ID_HEADER} (a host of this version does)`
              : `no node ${nodeId} is paired or waiting to join`,
        };
      }
    }
    if (options.closing() || !options.throttle.tryTake() || !options.admission.tryAdmit(request.socket))
      return {
        status: 503,
        error: "BUSY",
        message: options.closing() ? "router restarting" : "too many handshakes; retry",
        headers: { "Retry-After": spreadRetryAfter() },
      };
    return undefined;
  };
}
