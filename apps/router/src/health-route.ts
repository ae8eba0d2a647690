import { type Clock, formatAgo, formatDuration } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import type { NodeInfo } from "./registry/node-info.ts";

/** GET /health: router status and every known node, offline ones with their last-seen time. */
export function registerHealthRoute(
  app: FastifyInstance,
  registry: { list(): NodeInfo[] },
  chat: () => Array<Record<string, unknown>>,
  clock: Clock,
): void {
  app.get("/health", async () => ({
    status: "ok",
    chat: chat(),
    nodes: registry.list().map((node) => ({
      node_id: node.nodeId,
      display_name: node.displayName,
      status: node.status,
      users: node.servesUsers.length > 0 ? node.servesUsers : ["*"],
      sessions: node.sessions,
      capabilities: node.capabilities,
      connected_at: new Date(node.connectedAt).toISOString(),
      ...(node.status === "online"
        ? { online_for: formatDuration(clock.now() - node.connectedAt) }
        : { last_seen_ago: formatAgo(clock.now() - node.lastSeen) }),
      last_seen: new Date(node.lastSeen).toISOString(),
    })),
  }));
}
