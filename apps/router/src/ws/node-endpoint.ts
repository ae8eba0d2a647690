import type { Logger } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import { bearerMatches } from "./authenticate.ts";
import type { HandshakeThrottle } from "./handshake-throttle.ts";
import { acceptNodeSocket, type NodeSocketContext } from "./node-socket.ts";
import type { UpgradeJudge } from "./upgrade-gate.ts";

export interface NodeEndpointOptions {
  secret: string;
  throttle: HandshakeThrottle;
  /** True once the router is shutting down: new hosts are sent to try again (to the next instance). */
  closing: () => boolean;
}

/** Where hosts connect. */
export const NODE_PATH = "/ws/node";

/** GET /ws/node: hosts connect here, once `nodeHandshakeJudge` has let them through. */
export function registerNodeEndpoint(app: FastifyInstance, ctx: NodeSocketContext): void {
  app.get(NODE_PATH, { websocket: true }, (socket) => acceptNodeSocket(socket, ctx));
}

/**
 * Judges every upgrade request the router gets: anything but /ws/node gets 404; a wrong or
 * missing bearer secret gets HTTP 401; a handshake storm past the rate, or a router that is
 * shutting down, gets 503 + Retry-After. The secret is checked first, so strangers cannot use up
 * the handshake budget of real hosts.
 */
export function nodeHandshakeJudge(options: NodeEndpointOptions, logger: Logger): UpgradeJudge {
  return (request) => {
    // Default deny: this is the router's only WebSocket endpoint, and an exact match leaves no
    // spelling of the path (percent-encoded, doubled slashes) that reaches it unjudged.
    if (request.url?.split("?")[0] !== NODE_PATH)
      return { status: 404, error: "NOT_FOUND", message: `WebSocket connections go to ${NODE_PATH}` };
    if (!bearerMatches(request.headers.authorization, options.secret)) {
      logger.warn({ ip: request.socket.remoteAddress }, "node connection refused: bad or missing secret");
      return { status: 401, error: "UNAUTHORIZED", message: "missing or wrong bearer secret" };
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
