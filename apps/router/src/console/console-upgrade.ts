import type { IncomingMessage } from "node:http";
import type { AccessPolicy } from "../access/adapter-access.ts";
import type { UpgradeJudge } from "../node-link/upgrade-gate.ts";
import { sessionOf } from "./console-routes.ts";
import type { ConsoleSessions } from "./console-sessions.ts";

// Judges a WebSocket upgrade to /console/ws before anything else sees it. A page of another site
// could open a socket here with the user's cookie were the origin not checked (SameSite keeps the
// cookie off cross-site requests in current browsers, but not in every one): the Origin header
// must be this router's own, and the cookie a live sign-in.

export function consoleUpgradeJudge(deps: {
  sessions: ConsoleSessions;
  access: AccessPolicy;
  expectedOrigin: (headers: IncomingMessage["headers"]) => string;
}): UpgradeJudge {
  return (request) => {
    if (request.headers.origin !== deps.expectedOrigin(request.headers))
      return {
        status: 403,
        error: "FORBIDDEN",
        message: "a console socket must come from the console's own page",
      };
    if (!sessionOf(request.headers.cookie, deps))
      return { status: 401, error: "UNAUTHORIZED", message: "not signed in to the console" };
    return undefined;
  };
}
