import { bearerMatches, type Clock } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import { statusView } from "../commands/status-view.ts";
import type { NodeInfo } from "../registry/node-info.ts";

// GET /health. Without credentials: only that the router is up (for load balancers and
// uptime checks); nothing that names a node or a user. With `Authorization: Bearer <ADMIN_TOKEN>`:
// the admin's bounded view of every node and the chat connections.

export interface HealthRouteOptions {
  registry: { list(): NodeInfo[] };
  chat: () => Array<Record<string, unknown>>;
  clock: Clock;
  adminToken: string | undefined;
  version: string;
  startedAt: number;
}

export function registerHealthRoute(app: FastifyInstance, options: HealthRouteOptions): void {
  app.get("/health", async (request) => {
    const now = options.clock.now();
    const summary = {
      status: "ok",
      version: options.version,
      uptime_s: Math.round((now - options.startedAt) / 1000),
    };
    const { adminToken } = options;
    if (!adminToken || !bearerMatches(request.headers.authorization, adminToken)) return summary;
    return { ...summary, chat: options.chat(), ...statusView(options.registry.list(), now) };
  });
}
