import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { PushStore } from "./push-store.ts";
import { PushSubscriptionInput } from "./push-subscription.ts";

// The page's side of Web Push: the router's VAPID public key (for pushManager.subscribe), and
// keeping or dropping this sign-in's subscription. Signed-in pages only, from the router's own
// origin (a fetch's POST and DELETE always carry Origin).

export const PUSH_KEY_PATH = "/console/push/key";
export const PUSH_SUBSCRIPTION_PATH = "/console/push/subscription";

export interface PushRoutesDeps {
  store: PushStore;
  /** The live sign-in a request's cookie names. */
  sessionOf: (request: FastifyRequest) => { id: string; userId: string } | undefined;
  expectedOrigin: (request: FastifyRequest) => string;
}

const Unsubscribe = z.object({ endpoint: z.string().max(2048) });

export function registerPushRoutes(app: FastifyInstance, deps: PushRoutesDeps): void {
  const limits = { bodyLimit: 8192 };
  const refused = (request: FastifyRequest) => {
    if (request.headers.origin !== deps.expectedOrigin(request)) return { status: 403, error: "FORBIDDEN" };
    return deps.sessionOf(request) ? undefined : { status: 401, error: "UNAUTHORIZED" };
  };

  app.get(PUSH_KEY_PATH, (request, reply) => {
    if (!deps.sessionOf(request)) return reply.code(401).send({ error: "UNAUTHORIZED" });
    return reply.header("cache-control", "no-store").send({ publicKey: deps.store.vapidKeys().publicKey });
  });

  app.post(PUSH_SUBSCRIPTION_PATH, limits, (request, reply) => {
    const refusal = refused(request);
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
    const session = deps.sessionOf(request);
    const input = PushSubscriptionInput.safeParse(request.body);
    if (!session || !input.success)
      return reply.code(400).send({ error: "BAD_REQUEST", message: "not a push subscription" });
    deps.store.subscribe(session.id, session.userId, input.data);
    return reply.code(204).send();
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
