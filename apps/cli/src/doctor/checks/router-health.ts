import { request as httpGet } from "node:http";
import { request as httpsGet } from "node:https";

// Is what listens on a port a PhoneWork router? Its GET /health answers {status: "ok", version}.

/** The router's version when one answers at host:port, else undefined. */
export type HealthProbe = (
  host: string,
  port: number,
  tls: boolean,
  timeoutMs: number,
) => Promise<string | undefined>;

export const routerHealth: HealthProbe = (host, port, tls, timeoutMs) =>
  new Promise((resolve) => {
    const get = tls ? httpsGet : httpGet;
    // Our own port, so no trust decision is made here: only "is it a router" is asked.
    const request = get(
      { host, port, path: "/health", method: "GET", timeout: timeoutMs, rejectUnauthorized: false },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
          if (body.length > 64 * 1024) request.destroy();
        });
        response.on("end", () => resolve(versionOf(body)));
      },
    );
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
    request.end();
  });

function versionOf(body: string): string | undefined {
  try {
    const data = JSON.parse(body) as { status?: unknown; version?: unknown };
    if (data.status !== "ok") return undefined;
    return typeof data.version === "string" ? data.version : "unknown version";
  } catch {
    return undefined;
  }
}
