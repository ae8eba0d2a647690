import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { APPROVAL_COMMAND } from "../../contracts/phone-alerts.ts";
import type { PushStore } from "./push-store.ts";
import { PushSubscriptionInput } from "./push-subscription.ts";

// The page's side of Web Push: the router's VAPID public key (for pushManager.subscribe) with this
// sign-in's subscriptions, and keeping (for all nodes or some) or dropping one. And the service
// worker's: an Approve/Deny tapped on a notification, handed in as the user's own console message
// `@<node> /approve <id>` — only those two commands, only to a node of the user's. Signed-in pages
// only, from the router's own origin (a fetch's POST and DELETE always carry Origin).

export const PUSH_KEY_PATH = "/console/push/key";
export const PUSH_SUBSCRIPTION_PATH = "/console/push/subscription";
export const PUSH_ACT_PATH = "/console/push/act";

export interface PushRoutesDeps {
  store: PushStore;
  /** The live sign-in a request's cookie names. */
  sessionOf: (request: FastifyRequest) => { id: string; userId: string } | undefined;
  expectedOrigin: (request: FastifyRequest) => string;
  /** Sends `command` to `node` as the user's console message; false when the node is not theirs. */
  act: (userId: string, node: string, command: string) => Promise<boolean>;
}

/** A node id as the protocol allows it (no spaces, no `@`): nothing can ride along in the message. */
const NodeId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const OptIn = PushSubscriptionInput.extend({ nodes: z.array(NodeId).min(1).max(64).optional() });
const Unsubscribe = z.object({ endpoint: z.string().max(2048) });
const Act = z.object({ node: NodeId, command: z.string().regex(APPROVAL_COMMAND) });

export function registerPushRoutes(app: FastifyInstance, deps: PushRoutesDeps): void {
  const limits = { bodyLimit: 8192 };
  const refused = (request: FastifyRequest) => {
    if (request.headers.origin !== deps.expectedOrigin(request)) return { status: 403, error: "FORBIDDEN" };
    return deps.sessionOf(request) ? undefined : { status: 401, error: "UNAUTHORIZED" };
  };

  app.get(PUSH_KEY_PATH, (request, reply) => {
    const session = deps.sessionOf(request);
    if (!session) return reply.code(401).send({ error: "UNAUTHORIZED" });
    const subscriptions = deps.store
      .forSession(session.id)
      .map((kept) => ({ endpoint: kept.endpoint, nodes: kept.nodes ?? null }));
    return reply
      .header("cache-control", "no-store")
      .send({ publicKey: deps.store.vapidKeys().publicKey, subscriptions });
  });

  app.post(PUSH_SUBSCRIPTION_PATH, limits, (request, reply) => {
    const refusal = refused(request);
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
    const session = deps.sessionOf(request);
    const input = OptIn.safeParse(request.body);
    if (!session || !input.success)
      return reply.code(400).send({ error: "BAD_REQUEST", message: "not a push subscription" });
    deps.store.subscribe(session.id, session.userId, input.data, input.data.nodes);
    return reply.code(204).send();
  });

  app.post(PUSH_ACT_PATH, { bodyLimit: 1024 }, async (request, reply) => {
    const refusal = refused(request);
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
    const session = deps.sessionOf(request);
    const input = Act.safeParse(request.body);
    if (!session || !input.success)
      return reply.code(400).send({ error: "BAD_REQUEST", message: "only /approve <id> or /deny <id>" });
    if (!(await deps.act(session.userId, input.data.node, input.data.command)))
      return reply.code(404).send({ error: "NOT_FOUND", message: "no such node of yours" });
    return reply.code(202).send({ ok: true });
  });

  app.delete(PUSH_SUBSCRIPTION_PATH, limits, (request, reply) => {
    const refusal = refused(request);
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
    const session = deps.sessionOf(request);
    const input = Unsubscribe.safeParse(request.body);
    if (!session || !input.success) return reply.code(400).send({ error: "BAD_REQUEST" });
    deps.store.dropEndpointOf(session.id, input.data.endpoint);
    return reply.code(204).send();
  });
}
