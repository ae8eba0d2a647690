import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { appIconPng, ICON_SIZES } from "./app-icon.ts";
import { ICON_PATH, MANIFEST_PATH, SERVICE_WORKER_PATH, webManifest } from "./web-manifest.ts";

// The routes that make the console installable. None needs a sign-in: browsers fetch a manifest
// and its icons without cookies, and none of them says anything about the user. The service
// worker is served from /console/ (not /console/assets/) so that its scope is the whole console.

export const SERVICE_WORKER_FILE = "service-worker.js";

export function registerPwaRoutes(app: FastifyInstance, assetsDir: string | undefined): void {
  const manifest = JSON.stringify(webManifest());
  app.get(MANIFEST_PATH, (_request, reply) =>
    reply.type("application/manifest+json").header("cache-control", "no-cache").send(manifest),
  );
  for (const size of ICON_SIZES) {
    // Drawn once, at the first request (not at every start: drawing both takes ~0.1 CPU-s).
    let png: Buffer | undefined;
    app.get(ICON_PATH(size), (_request, reply) => {
      png ??= appIconPng(size);
      return reply.type("image/png").header("cache-control", "public, max-age=86400").send(png);
    });
  }
  app.get(SERVICE_WORKER_PATH, (_request, reply) => {
    const file = assetsDir ? join(assetsDir, SERVICE_WORKER_FILE) : undefined;
    if (!file || !existsSync(file))
      return reply
        .code(404)
        .send({ error: "NOT_BUILT", message: "the console's service worker is not built" });
    // no-cache: browsers check for a new worker on every visit, so a new build reaches the page.
    return reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "no-cache")
      .header("service-worker-allowed", "/console/")
      .send(readFileSync(file));
  });
}
