import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BotApiError, errorBody, notFound, unauthorized } from "./api/errors.ts";
import { routeOf } from "./api/request.ts";
import type { CallLog } from "./calls.ts";
import { type FaultQueue, faultError } from "./faults.ts";
import { Described, methodHandler } from "./methods/index.ts";
import { pause } from "./state/pause.ts";
import type { TelegramState } from "./state/state.ts";

// The Bot API over HTTP on 127.0.0.1, port 0: `/bot<token>/<method>` runs a method (after the token
// check and any scripted fault), `/file/bot<token>/<file_path>` serves a stored file. Webhook replies
// run through the same `runCall`, without faults. Not built on listenOnLoopback: uploads need the raw
// body bytes, and a held long poll needs to learn that its caller went away.

export interface ApiDeps {
  state: TelegramState;
  calls: CallLog;
  faults: FaultQueue;
}

interface Answer {
  status: number;
  /** A JSON envelope, or raw text for a scripted non-JSON fault. */
  body: object | string;
}

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

export async function listenBotApi(deps: ApiDeps): Promise<ApiServer> {
  const inFlight = new Set<AbortController>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const controller = new AbortController();
      inFlight.add(controller);
      res.on("close", () => {
        inFlight.delete(controller);
        if (!res.writableFinished) controller.abort();
      });
      handle(deps, req, res, Buffer.concat(chunks), controller.signal).catch((error: unknown) =>
        send(res, {
          status: 500,
          body: errorBody(new BotApiError(500, `Internal Server Error: ${String(error)}`)),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const controller of inFlight) controller.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  deps: ApiDeps,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  signal: AbortSignal,
) {
  const route = routeOf(req, body);
  if (route.kind === "unknown") return send(res, { status: 404, body: errorBody(notFound()) });
  if (route.kind === "file") {
    const file = route.token === deps.state.token ? deps.state.files.byPath(route.path) : undefined;
    if (!file) return send(res, { status: 404, body: errorBody(notFound()) });
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.data.length });
    return res.end(file.data);
  }
  const answer = await runCall(deps, route.method, route.params, signal, "http", route.token);
  send(res, answer);
}

/** Records the call, applies a scripted fault (HTTP calls only), runs the method. */
export async function runCall(
  deps: ApiDeps,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  via: "http" | "webhook-reply",
  token = deps.state.token,
): Promise<Answer> {
  const call = deps.calls.record(method, params, deps.state.now(), via);
  const answer = await answerCall(deps, method, params, signal, via, token);
  if (signal.aborted) return answer;
  call.status = answer.status;
  if (typeof answer.body === "object" && "ok" in answer.body) {
    const envelope = answer.body as { ok: boolean; result?: unknown; description?: string };
    if (envelope.ok) call.result = envelope.result;
    else call.description = envelope.description;
  } else call.description = String(answer.body);
  return answer;
}

async function answerCall(
  deps: ApiDeps,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  via: "http" | "webhook-reply",
  token: string,
): Promise<Answer> {
  if (token !== deps.state.token) return failure(unauthorized());
  const fault = via === "http" ? deps.faults.take(method) : undefined;
  if (fault?.delayMs) {
    await pause(fault.delayMs, signal);
    // The caller gave up while the server hung: the call has no effect and nobody reads the answer.
    if (signal.aborted) return { status: 0, body: "" };
  }
  if (fault?.body !== undefined) return { status: fault.status ?? 502, body: fault.body };
  const scripted = fault && faultError(fault);
  if (scripted) return failure(scripted);
  const handler = methodHandler(method);
  if (!handler) return failure(notFound());
  try {
    const result = await handler(deps.state, params, signal);
    return result instanceof Described
      ? { status: 200, body: { ok: true, result: result.result, description: result.description } }
      : { status: 200, body: { ok: true, result } };
  } catch (error) {
    if (error instanceof BotApiError) return failure(error);
    throw error;
  }
}

const failure = (error: BotApiError): Answer => ({ status: error.status, body: errorBody(error) });

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.headersSent) return;
  const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
  const type = typeof answer.body === "string" ? "text/html" : "application/json";
  res.writeHead(answer.status, { "content-type": type, "content-length": Buffer.byteLength(text) });
  res.end(text);
}
