import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describeMultipart, multipartBoundary, parseMultipart } from "../shared/multipart.ts";
import { waitFor } from "../shared/wait-for.ts";
import { DiscordApiError, unauthorized } from "./errors.ts";
import { type FaultQueue, faultAnswer } from "./faults.ts";
import type { FakeGateway } from "./gateway.ts";
import { findRoute, NO_AUTH, type RestRequest, type RouteContext } from "./rest-routes.ts";

// One HTTP server on 127.0.0.1, port 0, for all of the fake: REST under /api/v10 (after the token
// check and any scripted fault), attachment bytes under /cdn/, and the gateway's WebSocket at
// /gateway. Every REST call is recorded with its parsed body (files as name/size/type).

export interface DiscordCall {
  method: string;
  /** The path below /api/v10. */
  path: string;
  body: unknown;
  at: number;
  status?: number;
}

export class CallLog {
  readonly calls: DiscordCall[] = [];

  of(method: string, path: string | RegExp): DiscordCall[] {
    return this.calls.filter(
      (call) =>
        call.method === method && (typeof path === "string" ? call.path === path : path.test(call.path)),
    );
  }

  waitFor(
    method: string,
    path: string | RegExp,
    predicate: (call: DiscordCall) => boolean = () => true,
    timeoutMs = 5_000,
  ) {
    return waitFor(() => this.of(method, path).find((call) => call.status !== undefined && predicate(call)), {
      timeoutMs,
      intervalMs: 5,
      message: `a ${method} ${path} call`,
    });
  }
}

export interface ServerDeps {
  token: string;
  context: RouteContext;
  gateway: FakeGateway;
  faults: FaultQueue;
  calls: CallLog;
}

const API = "/api/v10";

function parseBody(
  req: IncomingMessage,
  raw: Buffer,
): Pick<RestRequest, "body" | "files"> & { recorded: unknown } {
  const boundary = multipartBoundary(req.headers["content-type"]);
  if (boundary) {
    const parts = parseMultipart(raw, boundary);
    const json = parts.find((part) => part.name === "payload_json");
    const body = json ? (JSON.parse(json.data.toString("utf8")) as Record<string, unknown>) : {};
    const files = parts
      .filter((part) => part.filename !== undefined)
      .map((part) => ({
        field: part.name,
        filename: part.filename ?? "file",
        data: Buffer.from(part.data),
        ...(part.contentType ? { contentType: part.contentType } : {}),
      }));
    const described = describeMultipart(parts.filter((part) => part.name !== "payload_json"));
    return { body, files, recorded: { ...body, files: described } };
  }
  const text = raw.toString("utf8");
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { body, files: [], recorded: body };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  if (body === undefined) {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, raw: Buffer) {
  const url = new URL(req.url ?? "/", "http://fake");
  if (req.method === "GET" && url.pathname.startsWith("/cdn/attachments/")) {
    const id = url.pathname.split("/")[3] ?? "";
    const file = deps.context.state.files.get(id);
    if (!file) return send(res, 404, { message: "Not Found", code: 0 });
    res.writeHead(200, {
      "content-type": file.contentType ?? "application/octet-stream",
      "content-length": file.data.length,
    });
    res.end(file.data);
    return;
  }
  if (!url.pathname.startsWith(API)) return send(res, 404, { message: "404: Not Found", code: 0 });
  const path = url.pathname.slice(API.length);
  const method = req.method ?? "GET";
  let parsed: ReturnType<typeof parseBody>;
  try {
    parsed = parseBody(req, raw);
  } catch {
    return send(res, 400, { message: "The request body contains invalid JSON.", code: 50109 });
  }
  const call: DiscordCall = { method, path, body: parsed.recorded, at: deps.context.state.now() };
  deps.calls.calls.push(call);
  const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
    call.status = body === undefined ? 204 : status;
    send(res, status, body, headers);
  };
  if (!NO_AUTH.test(path) && req.headers.authorization !== `Bot ${deps.token}`) {
    const error = unauthorized();
    return answer(error.status, { message: error.message, code: error.code });
  }
  const fault = deps.faults.take(`${method} ${path}`);
  if (fault) {
    const { status, body, headers } = faultAnswer(fault);
    return answer(status, body, headers);
  }
  const route = findRoute(method, path);
  if (!route) return answer(404, { message: "404: Not Found", code: 0 });
  try {
    answer(200, route.handler(deps.context, { method, path, ...parsed }, route.params));
  } catch (error) {
    if (!(error instanceof DiscordApiError)) throw error;
    answer(error.status, { message: error.message, code: error.code });
  }
}

export async function listenDiscord(deps: ServerDeps): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        handle(deps, req, res, Buffer.concat(chunks));
      } catch (error) {
        send(res, 500, { message: `Internal Server Error: ${String(error)}`, code: 0 });
      }
    });
  });
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://fake").pathname === "/gateway")
      deps.gateway.upgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      deps.gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
