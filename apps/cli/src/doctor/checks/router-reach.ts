import { connect } from "node:net";
import { type Check, fail, ok } from "./check.ts";
import { hostPort, type RouterAddress } from "./router-address.ts";

// Can this machine open a TCP connection to the router at all (name resolves, something listens,
// no firewall in between)? TLS and the handshake come after.

const TITLE = "router";

export function checkRouterReachable(address: RouterAddress, timeoutMs: number): Promise<Check> {
  const where = hostPort(address);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ host: address.host, port: address.port });
    const done = (check: Check) => {
      socket.destroy();
      resolve(check);
    };
    socket.setTimeout(timeoutMs, () =>
      done(
        fail(
          TITLE,
          `no answer from ${where} in ${timeoutMs / 1000} s`,
          "check ROUTER_URL, and any firewall between here and the router",
        ),
      ),
    );
    socket.once("connect", () =>
      done(ok(TITLE, `${where} reachable in ${Date.now() - started} ms (ROUTER_URL ${address.url})`)),
    );
    socket.once("error", (error: NodeJS.ErrnoException) => done(connectFailure(error, address, where)));
  });
}

function connectFailure(error: NodeJS.ErrnoException, address: RouterAddress, where: string): Check {
  if (error.code === "ECONNREFUSED")
    return fail(TITLE, `nothing listens on ${where}`, "start the router there, or correct ROUTER_URL");
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN")
    return fail(
      TITLE,
      `cannot resolve ${address.host}`,
      "check the host name in ROUTER_URL, and this machine's DNS",
    );
  return fail(
    TITLE,
    `cannot connect to ${where} (${error.code ?? error.message})`,
    "check ROUTER_URL and the network",
  );
}
