import type { FastifyInstance } from "fastify";
import { bearerMatches } from "./authenticate.ts";
import type { HandshakeThrottle } from "./handshake-throttle.ts";
import { acceptNodeSocket, type NodeSocketContext } from "./node-socket.ts";

export interface NodeEndpointOptions {
  secret: string;
  throttle: HandshakeThrottle;
  /** True once the router is shutting down: new hosts are sent to try again (to the next instance). */
  closing: () => boolean;
}

/**
 * GET /ws/node: hosts connect here. A wrong or missing bearer secret gets HTTP 401 before the
 * upgrade; a handshake storm past the rate, or a router that is shutting down, gets 503 + Retry-After.
 */
export function registerNodeEndpoint(
  app: FastifyInstance,
  options: NodeEndpointOptions,
  ctx: NodeSocketContext,
): void {
  app.get(
    "/ws/node",
    {
      websocket: true,
      preValidation: async (request, reply) => {
        if (!bearerMatches(request.headers.authorization, options.secret)) {
          request.log.warn({ ip: request.ip }, "node connection refused: bad or missing secret");
          await reply.code(401).send({ error: "UNAUTHORIZED", message: "missing or wrong bearer secret" });
          return;
        }
        if (options.closing() || !options.throttle.tryTake()) {
          await reply
            .code(503)
            .header("retry-after", "1")
            .send({
              error: "BUSY",
              message: options.closing() ? "router restarting" : "too many handshakes; retry",
            });
        }
      },
    },
    (socket) => acceptNodeSocket(socket, ctx),
  );
}
