import type { Logger } from "@phonework/runtime";
import { bearerMatches } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import type { HandshakeThrottle } from "./handshake-throttle.ts";
import { acceptNodeSocket, type NodeSocketContext } from "./node-socket.ts";
import type { UpgradeJudge } from "./upgrade-gate.ts";

export interface NodeEndpointOptions {
  /** The shared secret, only when this router accepts it (bound to loopback). */
  secret: string | undefined;
  throttle: HandshakeThrottle;
  /** True once the router is shutting down: new hosts are sent to try again (to the next instance). */
  closing: () => boolean;
}

/** Where hosts connect. */
export const NODE_PATH = "/ws/node";

/** GET /ws/node: hosts connect here, once `nodeHandshakeJudge` has let them through. */
export function registerNodeEndpoint(
  app: FastifyInstance,
  ctx: NodeSocketContext,
  secret: string | undefined,
): void {
  app.get(NODE_PATH, { websocket: true }, (socket, request) => {
    const viaSecret = secret !== undefined && bearerMatches(request.headers.authorization, secret);
    acceptNodeSocket(socket, ctx, viaSecret);
  });
}

/**
 * Judges every upgrade request the router gets: anything but /ws/node gets 404; a bearer secret
 * that is wrong, or presented to a router that takes none (a public one: hosts pair there), gets
 * HTTP 401; a handshake storm past the rate, or a router that is shutting down, gets 503 +
 * Retry-After. A paired host presents no secret: it proves its key inside the socket.
 */
export function nodeHandshakeJudge(options: NodeEndpointOptions, logger: Logger): UpgradeJudge {
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
      logger.warn(
        { ip: request.socket.remoteAddress },
        "node connection refused: shared secret through a proxy",
      );
      return {
        status: 401,
        error: "UNAUTHORIZED",
        message: "the shared secret is not accepted through a proxy",
      };
    }
    if (bearer !== undefined && (options.secret === undefined || !bearerMatches(bearer, options.secret))) {
      logger.warn(
        { ip: request.socket.remoteAddress },
        "node connection refused: wrong or unaccepted secret",
      );
      const message = options.secret
        ? "wrong bearer secret"
        : "this router takes no shared secret: pair the host with a join code";
      return { status: 401, error: "UNAUTHORIZED", message };
    }
    if (options.closing() || !options.throttle.tryTake())
      return {
        status: 503,
        error: "BUSY",
        message: options.closing() ? "router restarting" : "too many handshakes; retry",
        headers: { "Retry-After": "1" },
      };
    return undefined;
  };
}
