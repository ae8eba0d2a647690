import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../shared/http-server.ts";
import type { FaultQueue } from "./faults.ts";
import { dmOf, type WorkspaceState } from "./state.ts";

// The Web API the real @slack/web-api client calls: POST /api/<method>, a bearer token, a form or
// JSON body (the client sends forms, with objects such as `blocks` JSON-encoded inside). Slack
// answers HTTP 200 with ok:false for its own errors; 429 with Retry-After when rate limited.

type Params = Record<string, unknown>;
type Answer = Record<string, unknown>;

/** Fields the client JSON-encodes inside a form. */
const JSON_FIELDS = new Set(["blocks", "files", "attachments"]);

export function parseParams(req: IncomingMessage, body: string): Params {
  if ((req.headers["content-type"] ?? "").includes("application/json")) {
    try {
      return JSON.parse(body || "{}") as Params;
    } catch {
      return {};
    }
  }
  const params: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    if (!JSON_FIELDS.has(key)) {
      params[key] = value;
      continue;
    }
    try {
      params[key] = JSON.parse(value);
    } catch {
      params[key] = value;
    }
  }
  return params;
}

class SlackError extends Error {}
const fail = (error: string): never => {
  throw new SlackError(error);
};

const text = (value: unknown) => (typeof value === "string" ? value : "");

function channelParam(state: WorkspaceState, value: unknown): string {
  const channel = text(value);
  if (!state.channels.has(channel)) fail("channel_not_found");
  return channel;
}

export type Method = (params: Params, state: WorkspaceState, baseUrl: string) => Answer;

export const METHODS: Record<string, Method> = {
  "auth.test": (_p, state) => ({
    url: "https://fake.slack.com/",
    team: "Fake Workspace",
    user: "phonework",
    team_id: state.teamId,
    user_id: state.botUserId,
    bot_id: state.botId,
  }),
  "conversations.open": (params, state) => {
    const user = text(params.users).split(",")[0] ?? "";
    if (!state.users.has(user)) fail("user_not_found");
    return { channel: { id: dmOf(state, user) } };
  },
  "chat.postMessage": (params, state) => {
    const channel = channelParam(state, params.channel);
    const ts = state.ids.ts();
    const threadTs = text(params.thread_ts) || undefined;
    const blocks = Array.isArray(params.blocks) ? params.blocks : undefined;
    state.messages.push({
      ts,
      channel,
      ...(threadTs ? { threadTs } : {}),
      from: "bot",
      text: text(params.text),
      ...(blocks ? { blocks } : {}),
      edits: 0,
    });
    return { channel, ts, message: { text: text(params.text), ts } };
  },
  "chat.update": (params, state) => {
    const channel = channelParam(state, params.channel);
    const message = state.messages.find((m) => m.channel === channel && m.ts === params.ts);
    if (!message) return fail("message_not_found");
    if (message.from !== "bot") fail("cant_update_message");
    message.text = text(params.text);
    if (Array.isArray(params.blocks) && params.blocks.length > 0) message.blocks = params.blocks;
    else delete message.blocks;
    message.edits += 1;
    return { channel, ts: message.ts, text: message.text };
  },
  "chat.postEphemeral": (params, state) => {
    const channel = channelParam(state, params.channel);
    state.ephemerals.push({ channel, user: text(params.user), text: text(params.text) });
    return { message_ts: state.ids.ts() };
  },
  "files.getUploadURLExternal": (params, state, baseUrl) => {
    const name = text(params.filename);
    if (!name || !Number(params.length)) fail("invalid_arguments");
    const id = state.ids.next("F");
    state.uploads.set(id, { id, name, data: Buffer.alloc(0) });
    return { upload_url: `${baseUrl}/upload/${id}`, file_id: id };
  },
  "files.completeUploadExternal": (params, state) => {
    const files = Array.isArray(params.files) ? (params.files as Array<{ id?: string; title?: string }>) : [];
    const channel = params.channel_id === undefined ? undefined : channelParam(state, params.channel_id);
    const threadTs = text(params.thread_ts) || undefined;
    const done = files.map((file) => {
      const upload = state.uploads.get(file.id ?? "");
      if (!upload || upload.data.length === 0) return fail("file_not_found");
      if (channel) upload.channel = channel;
      if (threadTs) upload.threadTs = threadTs;
      return upload;
    });
    if (channel)
      state.messages.push({
        ts: state.ids.ts(),
        channel,
        ...(threadTs ? { threadTs } : {}),
        from: "bot",
        text: "",
        files: done.map((file) => ({ id: file.id, name: file.name, size: file.data.length })),
        edits: 0,
      });
    return { files: done.map((file) => ({ id: file.id, title: file.name })) };
  },
};

export async function handleApiCall(
  method: string,
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  deps: { state: WorkspaceState; faults: FaultQueue; baseUrl: string; methods: Record<string, Method> },
): Promise<void> {
  const { state } = deps;
  const params = parseParams(req, body);
  const record = (status: number, error?: string) =>
    state.calls.push({ method, params, status, ...(error ? { error } : {}) });
  const fault = deps.faults.take(method);
  if (fault?.status !== undefined) {
    record(fault.status, fault.status === 429 ? "ratelimited" : "server_error");
    const headers: Record<string, string> =
      fault.status === 429 ? { "retry-after": String(fault.retryAfter ?? 1) } : {};
    return sendJson(
      res,
      fault.status,
      { ok: false, error: fault.status === 429 ? "ratelimited" : "fatal_error" },
      headers,
    );
  }
  if (fault) {
    record(200, fault.error ?? "internal_error");
    return sendJson(res, 200, { ok: false, error: fault.error ?? "internal_error" });
  }
  const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const expected = method === "apps.connections.open" ? state.appToken : state.botToken;
  if (token !== expected) {
    record(200, "invalid_auth");
    return sendJson(res, 200, { ok: false, error: "invalid_auth" });
  }
  const run = deps.methods[method];
  if (!run) {
    record(200, "unknown_method");
    return sendJson(res, 200, { ok: false, error: "unknown_method" });
  }
  try {
    const answer = run(params, state, deps.baseUrl);
    record(200);
    sendJson(res, 200, { ok: true, ...answer });
  } catch (error) {
    if (!(error instanceof SlackError)) throw error;
    record(200, error.message);
    sendJson(res, 200, { ok: false, error: error.message });
  }
}
