import type { FastifyInstance } from "fastify";
import { bearerMatches } from "./authenticate.ts";
import { acceptNodeSocket, type NodeSocketContext } from "./node-socket.ts";

/** GET /ws/node: hosts connect here. A wrong or missing bearer secret gets HTTP 401 before the upgrade. */
export function registerNodeEndpoint(app: FastifyInstance, secret: string, ctx: NodeSocketContext): void {
  app.get(
    "/ws/node",
    {
      websocket: true,
      preValidation: async (request, reply) => {
        if (!bearerMatches(request.headers.authorization, secret)) {
          request.log.warn({ ip: request.ip }, "node connection refused: bad or missing secret");
          await reply.code(401).send({ error: "UNAUTHORIZED", message: "missing or wrong bearer secret" });
        }
      },
    },
    (socket) => acceptNodeSocket(socket, ctx),
  );
}
