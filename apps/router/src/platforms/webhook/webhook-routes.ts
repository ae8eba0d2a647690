import type { FastifyInstance } from "fastify";
import type { WebhookEndpoint } from "../platform-adapter.ts";

/**
 * Serves each platform's webhook on the router's HTTP server. Its body is kept raw: signatures
 * are over the raw bytes, so no JSON parser may touch it first.
 */
export function registerWebhookRoutes(app: FastifyInstance, webhooks: readonly WebhookEndpoint[]): void {
  app.register(async (scope) => {
    scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) =>
      done(null, body),
    );
    // Slack posts slash commands and button presses as forms, signed over the raw bytes too. The
    // console's form parser (when registered beside this scope) would decode them: replaced here.
    if (scope.hasContentTypeParser("application/x-www-form-urlencoded"))
      scope.removeContentTypeParser("application/x-www-form-urlencoded");
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string" },
      (_request, body, done) => done(null, body),
    );
    for (const webhook of webhooks) {
      scope.post(webhook.path, async (request, reply) => {
        const result = await webhook.handle({
          headers: request.headers,
          rawBody: String(request.body ?? ""),
        });
        return reply.code(result.status).send(result.body);
      });
    }
  });
}
