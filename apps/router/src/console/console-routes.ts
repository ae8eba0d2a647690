import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import type { FastifyHelmetOptions } from "@fastify/helmet";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import { z } from "zod";
import type { AccessPolicy } from "../access/adapter-access.ts";
import { ConsoleCloseCode } from "./console-close-codes.ts";
import { clearedCookie, readCookie, SESSION_COOKIE, sessionCookie } from "./console-cookie.ts";
import { ASSETS_PREFIX, appPage, loginPage, noticePage } from "./console-html.ts";
import type { ConsoleSession, ConsoleSessions } from "./console-sessions.ts";
import type { LoginCodeAttempts } from "./login-code-attempts.ts";
import type { LoginLinks } from "./login-links.ts";
import { registerPwaRoutes } from "./pwa/pwa-routes.ts";

// The console's HTTP side, in its own scope: security headers and a strict CSP on every response,
// the built assets, the login exchange (rate-limited per client address — the forwarded one behind
// a trusted proxy — and per code), sign-out, and /console/ws for pages. The three fastify plugins
// are loaded here, when the routes are registered: a router without the console (no chat, or
// CONSOLE=off) never reads them (~350 KB of the bundle with @fastify/static's glob).

export const CONSOLE_WS_PATH = "/console/ws";

export interface ConsoleRoutesDeps {
  /** The built page (console.js, console.css, login.js); undefined when it is not built. */
  assetsDir: string | undefined;
  links: LoginLinks;
  sessions: ConsoleSessions;
  access: AccessPolicy;
  /** Cookies carry Secure: browsers reach the router over HTTPS (TLS here, or PUBLIC_URL). */
  secure: boolean;
  sessionTtlMs: number;
  loginPerMin: number;
  /** Sign-ins tried per code, from any address. */
  codeAttempts: LoginCodeAttempts;
  /** The origin a request of this router's own pages comes from. */
  expectedOrigin: (headers: FastifyRequest["headers"]) => string;
  /** A page connected, signed in as `session`. */
  openPage: (socket: WebSocket, session: ConsoleSession) => void;
  /** Told the connection of a signed-in page's socket: it is no stranger's (see ConnectionCaps). */
  vouch?: (socket: Socket) => void;
}

const LoginCode = z.string().regex(/^[A-Za-z0-9_-]{20,100}$/);

const NOT_SIGNED_IN = "Send /console in your PhoneWork chat for a sign-in link.";
const BAD_LINK =
  "This sign-in link is not valid: it was used already, or it expired. Send /console in your chat for a new one.";
const TRIED_TOO_OFTEN =
  "This sign-in link was tried too often and no longer works. Send /console in your chat for a new one.";

/** The signed-in session a request's cookie names, if it is live and its user may still use the console. */
export function sessionOf(
  cookieHeader: string | undefined,
  deps: Pick<ConsoleRoutesDeps, "sessions" | "access">,
): ConsoleSession | undefined {
  const token = readCookie(cookieHeader, SESSION_COOKIE);
  const session = token ? deps.sessions.find(token) : undefined;
  return session && deps.access.mayUse(session.userId, "private") ? session : undefined;
}

/** Security headers on every console response, with a CSP that allows no inline script. */
const SECURITY_HEADERS: FastifyHelmetOptions = {
  enableCSPNonces: true, // only the style nonce is used (see appPage); no script is inline
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      // xterm.js colours cells with style attributes; no script can come in through them.
      styleSrcAttr: ["'unsafe-inline'"],
      // 'self': the app's icons (pwa/); blob: the raster images hosts send (file-type.ts).
      imgSrc: ["'self'", "blob:"],
      manifestSrc: ["'self'"],
      workerSrc: ["'self'"],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
    },
  },
  referrerPolicy: { policy: "same-origin" }, // see console-html.ts
  crossOriginEmbedderPolicy: false,
};

export async function registerConsoleRoutes(app: FastifyInstance, deps: ConsoleRoutesDeps): Promise<void> {
  const [{ default: helmet }, { default: rateLimit }, { default: fastifyStatic }] = await Promise.all([
    import("@fastify/helmet"),
    import("@fastify/rate-limit"),
    import("@fastify/static"),
  ]);
  await app.register(helmet, SECURITY_HEADERS);
  await app.register(rateLimit, { global: false });
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const loginLimit = { rateLimit: { max: deps.loginPerMin, timeWindow: 60_000 } };
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(body);
  const sameOrigin = (request: FastifyRequest) =>
    request.headers.origin === undefined || request.headers.origin === deps.expectedOrigin(request.headers);

  if (deps.assetsDir && existsSync(deps.assetsDir))
    await app.register(fastifyStatic, {
      root: deps.assetsDir,
      prefix: ASSETS_PREFIX,
      decorateReply: false,
      index: false,
      cacheControl: true,
      maxAge: 0, // revalidated (ETag): the names carry no hash
    });
  else
    app.get(`${ASSETS_PREFIX}*`, (_request, reply) =>
      reply.code(503).send({
        error: "NOT_BUILT",
        message: "the console's page is not built: run pnpm build, then restart the router",
      }),
    );

  registerPwaRoutes(app, deps.assetsDir);

  app.get("/console", (_request, reply) => reply.redirect("/console/", 302));

  app.get("/console/", (request, reply) => {
    if (!sessionOf(request.headers.cookie, deps))
      return html(reply, 200, noticePage("Signed out", NOT_SIGNED_IN));
    return html(reply, 200, appPage(reply.cspNonce.style));
  });

  // Whether the cookie is a live sign-in: a page whose socket was refused asks once, to say why.
  app.get("/console/session", (request, reply) =>
    reply
      .code(sessionOf(request.headers.cookie, deps) ? 204 : 401)
      .header("cache-control", "no-store")
      .send(),
  );

  // Not logged at info: the address carries the code (the router's logger redacts it too).
  app.get("/console/login", { config: loginLimit, logLevel: "warn" }, (request, reply) => {
    const code = LoginCode.safeParse((request.query as { code?: unknown }).code);
    if (!code.success) return html(reply, 400, noticePage("Not signed in", NOT_SIGNED_IN));
    return html(reply, 200, loginPage(code.data));
  });

  app.post("/console/login", { config: loginLimit }, (request, reply) => {
    const code = LoginCode.safeParse((request.body as { code?: unknown } | undefined)?.code);
    const tried = code.success ? deps.codeAttempts.count(code.data) : "ok";
    if (tried !== "ok") {
      if (tried === "burn" && code.success) {
        deps.links.burn(code.data);
        request.log.warn({ ip: request.ip }, "console login code tried too often; burned");
      }
      return html(reply, 429, noticePage("Link not valid", TRIED_TOO_OFTEN));
    }
    if (!sameOrigin(request)) return html(reply, 403, noticePage("Refused", "Sign in from the link itself."));
    const userId = code.success ? deps.links.redeem(code.data) : undefined;
    if (!userId) {
      request.log.warn("console login refused: unknown, used or expired code");
      return html(reply, 403, noticePage("Link not valid", BAD_LINK));
    }
    if (!deps.access.mayUse(userId, "private")) {
      request.log.warn({ userId }, "console login refused: the user may not use the chat");
      return html(reply, 403, noticePage("Refused", "Your chat account may not use this PhoneWork router."));
    }
    const { token } = deps.sessions.start(userId);
    request.log.info({ userId }, "console sign-in");
    return reply
      .header("set-cookie", sessionCookie(token, { maxAgeS: deps.sessionTtlMs / 1000, secure: deps.secure }))
      .header("cache-control", "no-store")
      .redirect("/console/", 303);
  });

  app.post("/console/logout", (request, reply) => {
    if (!sameOrigin(request)) return html(reply, 403, noticePage("Refused", "Sign out from the console."));
    const session = sessionOf(request.headers.cookie, deps);
    if (session) deps.sessions.end(session.id);
    return reply.header("set-cookie", clearedCookie(deps.secure)).redirect("/console/", 303);
  });

  // The upgrade was judged already (origin, cookie: see consoleUpgradeJudge); the session is read
  // again here because it may have ended in between.
  app.get(CONSOLE_WS_PATH, { websocket: true }, (socket, request) => {
    const session = sessionOf(request.headers.cookie, deps);
    if (!session) {
      socket.close(ConsoleCloseCode.SIGNED_OUT, "signed out");
      return;
    }
    deps.vouch?.(request.raw.socket);
    deps.openPage(socket, session);
  });
}
