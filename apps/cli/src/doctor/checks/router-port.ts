import { createServer } from "node:net";
import { type Check, fail, ok } from "./check.ts";
import { hostPort } from "./router-address.ts";
import { type HealthProbe, routerHealth } from "./router-health.ts";

// Can the router listen on ROUTER_HOST:ROUTER_PORT? Bound for a moment and let go; if it is taken,
// a router already serving there is fine, anything else is not.

const TITLE = "port";

/** Where to reach a server bound to `host` from this machine. */
const dialable = (host: string) => (host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host);

export async function checkRouterPort(
  host: string,
  port: number,
  options: { tls: boolean; timeoutMs: number; health?: HealthProbe },
): Promise<Check> {
  const where = hostPort({ host, port });
  if (port === 0) return ok(TITLE, `${where}: the system picks a free port at each start`);
  const code = await tryBind(host, port);
  if (code === undefined) return ok(TITLE, `${where} is free`);
  if (code === "EADDRINUSE") {
    const version = await (options.health ?? routerHealth)(
      dialable(host),
      port,
      options.tls,
      options.timeoutMs,
    );
    if (version) return ok(TITLE, `${where}: a router is already serving here (${version})`);
    return fail(TITLE, `${where} is taken by another program`, "stop it, or set ROUTER_PORT to a free port");
  }
  if (code === "EACCES")
    return fail(
      TITLE,
      `not allowed to listen on ${where} (ports below 1024 need privileges)`,
      "set ROUTER_PORT to 1024 or above (and put a proxy on 443), or grant the privilege",
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return fail(
      TITLE,
      `${host} is not an address of this machine`,
      "set ROUTER_HOST (0.0.0.0 for every interface, 127.0.0.1 for this machine only)",
    );
  return fail(TITLE, `cannot listen on ${where} (${code})`, "set ROUTER_HOST and ROUTER_PORT");
}

/** undefined when `host:port` could be bound (and was let go at once), else the error code. */
function tryBind(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
