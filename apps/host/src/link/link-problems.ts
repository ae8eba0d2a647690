import type { IncomingMessage } from "node:http";
import type { Logger } from "@phonework/runtime";

// Why the host cannot get in, said to its user once per change (at warn), not as an error with a
// stack trace on every retry: a refused key stays refused until someone pairs the host again.

const HOW_TO_PAIR =
  "ask an admin for a join code (/pair <name> in chat, or `phonework pair <name>` on the router) and start this host with --join <code>";

export function refusedText(reason: string): string {
  return `the router refused this node's key or join code (${reason}); ${HOW_TO_PAIR}`;
}

/** A refused upgrade, by HTTP status. */
export function httpRefusalText(status: number): string {
  if (status === 401) return refusedText("HTTP 401");
  if (status === 404) return "ROUTER_URL must end with /ws/node (the router answered 404)";
  if (status === 503) return "the router is busy or restarting (503); retrying";
  return `the router refused the connection (HTTP ${status}); retrying`;
}

/**
 * The `message` of a refused upgrade's JSON body (the router says why: a wrong secret, or no such
 * node paired or waiting to join), or undefined when it has none. Reads at most 4 KB.
 */
export function refusalMessage(response: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    let body = "";
    const done = () => {
      try {
        const message = (JSON.parse(body) as { message?: unknown }).message;
        resolve(typeof message === "string" && message ? message.slice(0, 300) : undefined);
      } catch {
        resolve(undefined);
      }
    };
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 4096) response.destroy();
    });
    response.once("end", done);
    response.once("close", done);
    response.once("error", () => resolve(undefined));
  });
}

const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|ERR_TLS/;

/** A connection error, as its user should read it. */
export function connectErrorText(error: Error & { code?: string }): string {
  if (error.code && CERT_ERRORS.test(error.code))
    return `the router's TLS certificate was refused (${error.code}: ${error.message}); if the router uses a self-signed certificate, set ROUTER_CA_FILE to its CA or pin it with ROUTER_CERT_SHA256`;
  return `cannot reach the router (${error.code ?? error.message}); retrying`;
}

export class ProblemReporter {
  private last: string | undefined;

  constructor(private readonly logger: Logger) {}

  /** Logs `text` unless it is what was said last. */
  report(text: string, fields: Record<string, unknown> = {}): void {
    if (text === this.last) return;
    this.last = text;
    this.logger.warn(fields, text);
  }

  /** Things work again: the next problem is news. */
  clear(): void {
    this.last = undefined;
  }
}
