import type { IncomingHttpHeaders } from "node:http";
import type { MultipartPart } from "../shared/multipart.ts";
import type { TenantTokens } from "./auth.ts";
import type { FeishuError, RouteResult } from "./errors.ts";
import { newLogId } from "./ids.ts";
import type { LongConnection } from "./long-connection.ts";
import type { MessageStore } from "./messages.ts";
import { type ResourceStore, resourceHeaders } from "./resources.ts";
import { type Upload, uploadFile, uploadImage } from "./uploads.ts";

// Routing of the Open API surface the fake implements. Everything under /open-apis/ except the token
// endpoint needs a live tenant token; the answers use Feishu's envelope.

export interface ParsedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  json: unknown;
  parts?: MultipartPart[];
}

export interface Answer {
  status: number;
  /** JSON, or the bytes of a download (sent as they are). */
  body: unknown;
  headers?: Record<string, string>;
}

export interface OpenApiState {
  baseUrl: string;
  tokens: TenantTokens;
  messages: MessageStore;
  uploads: Upload[];
  resources: ResourceStore;
  longConnection: LongConnection;
  botOpenId: string;
}

const TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal";
const MESSAGE_PATH = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/;
const REPLY_PATH = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/;
const RESOURCE_PATH = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/;

export const errorAnswer = (error: FeishuError): Answer => ({
  status: error.status,
  body: { code: error.code, msg: error.msg, error: { log_id: newLogId() } },
  headers: error.headers,
});

const toAnswer = (result: RouteResult): Answer =>
  "error" in result
    ? errorAnswer(result.error)
    : { status: 200, body: { code: 0, msg: "success", data: result.data } };

export function answer(request: ParsedRequest, state: OpenApiState): Answer {
  const { method, path } = request;
  if (method === "POST" && path === TOKEN_PATH) {
    const grant = state.tokens.issue(request.json);
    return "status" in grant ? errorAnswer(grant) : { status: 200, body: { code: 0, msg: "ok", ...grant } };
  }
  if (method === "POST" && path === "/callback/ws/endpoint") {
    return { status: 200, body: state.longConnection.endpoint(request.json, state.baseUrl) };
  }
  if (method === "GET" && path === "/open-apis/bot/v3/info") {
    // This endpoint answers with `bot` at the top level, not inside `data`.
    const authError = state.tokens.check(request.headers);
    if (authError) return errorAnswer(authError);
    return {
      status: 200,
      body: {
        code: 0,
        msg: "ok",
        bot: { activate_status: 2, app_name: "PhoneWork", open_id: state.botOpenId },
      },
    };
  }
  const resource = RESOURCE_PATH.exec(path);
  if (method === "GET" && resource?.[1] && resource[2]) {
    const authError = state.tokens.check(request.headers);
    if (authError) return errorAnswer(authError);
    const found = state.resources.download(
      state.messages,
      decodeURIComponent(resource[1]),
      decodeURIComponent(resource[2]),
      request.query.type,
    );
    if ("error" in found) return errorAnswer(found.error);
    return { status: 200, body: found.resource.data, headers: resourceHeaders(found.resource) };
  }
  const route = openApiRoute(request, state);
  if (!route) {
    return { status: 404, body: { code: 404, msg: `fake-feishu: no route for ${method} ${path}` } };
  }
  const authError = state.tokens.check(request.headers);
  return authError ? errorAnswer(authError) : toAnswer(route());
}

function openApiRoute(request: ParsedRequest, state: OpenApiState): (() => RouteResult) | undefined {
  const { method, path, json, query } = request;
  const { messages, uploads } = state;
  if (method === "POST" && path === "/open-apis/im/v1/messages") return () => messages.create(query, json);
  if (method === "POST" && path === "/open-apis/im/v1/files") return () => uploadFile(request.parts, uploads);
  if (method === "POST" && path === "/open-apis/im/v1/images")
    return () => uploadImage(request.parts, uploads);
  const reply = REPLY_PATH.exec(path)?.[1];
  if (method === "POST" && reply) return () => messages.reply(decodeURIComponent(reply), json);
  const target = MESSAGE_PATH.exec(path)?.[1];
  if (method === "PATCH" && target) return () => messages.patch(decodeURIComponent(target), json);
  if (method === "PUT" && target) return () => messages.update(decodeURIComponent(target), json);
  return undefined;
}
