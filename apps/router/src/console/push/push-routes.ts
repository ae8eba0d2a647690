import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
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
  /** The sign-in and parsed body of a write, or undefined once the refusal or 400 has been sent. */
  const accepted = <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    schema: z.ZodType<T>,
    message?: string,
  ) => {
    const refusal = refused(request);
    if (refusal) {
      reply.code(refusal.status).send({ error: refusal.error });
      return undefined;
    }
    const session = deps.sessionOf(request);
    const input = schema.safeParse(request.body);
    if (!session || !input.success) {
      reply
        .code(400)
        .send(message === undefined ? { error: "BAD_REQUEST" } : { error: "BAD_REQUEST", message });
      return undefined;
    }
    return { session, data: input.data };
  };

  app.get(PUSH_KEY_PATH, async (request, reply) => {
    const session = deps.sessionOf(request);
    if (!session) return reply.code(401).send({ error: "UNAUTHORIZED" });
    const subscriptions = deps.store
      .forSession(session.id)
      .map((kept) => ({ endpoint: kept.endpoint, nodes: kept.nodes ?? null }));
    const { publicKey } = await deps.store.vapidKeys();
    return reply.header("cache-control", "no-store").send({ publicKey, subscriptions });
  });

  app.post(PUSH_SUBSCRIPTION_PATH, limits, (request, reply) => {
    const ok = accepted(request, reply, OptIn, "not a push subscription");
    if (!ok) return reply;
    deps.store.subscribe(ok.session.id, ok.session.userId, ok.data, ok.data.nodes);
    return reply.code(204).send();
  });

  app.post(PUSH_ACT_PATH, { bodyLimit: 1024 }, async (request, reply) => {
    const ok = accepted(request, reply, Act, "only /approve <id> or /deny <id>");
    if (!ok) return reply;
    if (!(await deps.act(ok.session.userId, ok.data.node, ok.data.command)))
      return reply.code(404).send({ error: "NOT_FOUND", message: "no such node of yours" });
    return reply.code(202).send({ ok: true });
  });

  app.delete(PUSH_SUBSCRIPTION_PATH, limits, (request, reply) => {
    const ok = accepted(request, reply, Unsubscribe);
    if (!ok) return reply;
    deps.store.dropEndpointOf(ok.session.id, ok.data.endpoint);
    return reply.code(204).send();
  });
}
