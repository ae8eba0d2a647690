import type { ServerResponse } from "node:http";
import { nextReply, waitWhileOpen } from "./scripted-replies.ts";
import { listenOnLoopback, sendJson } from "./shared/http-server.ts";

// An OpenAI Responses API (streaming SSE) for the real `codex` CLI, reached through a Codex
// model provider whose base_url points here. Tests script the model's turns — text, or a call
// of Codex's shell tool — and read back every request (tool outputs, earlier turns on resume).

export interface ResponsesRequest {
  model: string;
  input: Array<Record<string, unknown>>;
  tools?: Array<{ type: string; name?: string }>;
  reasoning?: { effort?: string } | null;
  [key: string]: unknown;
}

export type ResponsesReply =
  | { text: string }
  | { call: { name: string; arguments: Record<string, unknown> | string }; text?: string }
  | { status: number; body?: unknown }
  | { delayMs: number; reply: ResponsesReply };

export type ResponsesStep =
  | ResponsesReply
  | ((request: ResponsesRequest) => ResponsesReply | Promise<ResponsesReply>);

export interface FakeResponses {
  /** For a Codex provider's base_url (includes /v1). */
  url: string;
  requests: ResponsesRequest[];
  script(...steps: ResponsesStep[]): void;
  fallback: (request: ResponsesRequest) => ResponsesReply;
  /** Texts of the user's input messages in a request. */
  userTexts(request?: ResponsesRequest): string[];
  /** Outputs of function calls the CLI ran, in a request. */
  toolOutputs(request?: ResponsesRequest): string[];
  /**
   * A Codex config.toml that points a provider named "fake" at this server. Codex fails a turn at
   * the first error unless `streamRetries` is given: then it retries that often ("Reconnecting…").
   */
  codexConfig(options?: { streamRetries?: number }): string;
  close(): Promise<void>;
}

let counter = 0;
const id = (prefix: string) => `${prefix}_${++counter}`;

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

export async function startFakeResponses(): Promise<FakeResponses> {
  const queue: ResponsesStep[] = [];
  const requests: ResponsesRequest[] = [];
  const pick = (request?: ResponsesRequest) => (request ?? requests.at(-1))?.input ?? [];
  const fake: FakeResponses = {
    url: "",
    requests,
    script: (...steps) => queue.push(...steps),
    fallback: (request) => ({ text: `fake-codex: ${fake.userTexts(request).at(-1) ?? ""}` }),
    userTexts: (request) =>
      pick(request)
        .filter((item) => item.role === "user")
        .map((item) => contentText(item.content)),
    toolOutputs: (request) =>
      pick(request)
        .filter((item) => item.type === "function_call_output")
        .map((item) => (typeof item.output === "string" ? item.output : JSON.stringify(item.output))),
    codexConfig: ({ streamRetries = 0 } = {}) =>
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        "[model_providers.fake]",
        'name = "fake"',
        `base_url = "${fake.url}"`,
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        // Fail fast in tests instead of retrying with backoff.
        "request_max_retries = 0",
        `stream_max_retries = ${streamRetries}`,
        "",
      ].join("\n"),
    close: async () => {},
  };

  const respond = async (
    res: ServerResponse,
    request: ResponsesRequest,
    reply: ResponsesReply,
  ): Promise<void> => {
    if ("delayMs" in reply) {
      if (await waitWhileOpen(res, reply.delayMs)) await respond(res, request, reply.reply);
      return;
    }
    if ("status" in reply) {
      sendJson(res, reply.status, reply.body ?? { error: { message: "fake error", type: "server_error" } });
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let sequence = 0;
    const send = (event: Record<string, unknown>) =>
      res.write(
        `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`,
      );
    const base = {
      id: id("resp"),
      object: "response",
      created_at: 0,
      model: request.model,
      status: "in_progress",
      output: [],
    };
    send({ type: "response.created", response: base });
    const output: Array<Record<string, unknown>> = [];
    if ("call" in reply) {
      const args =
        typeof reply.call.arguments === "string"
          ? reply.call.arguments
          : JSON.stringify(reply.call.arguments);
      const item = {
        type: "function_call",
        id: id("fc"),
        call_id: id("call"),
        name: reply.call.name,
        arguments: args,
        status: "completed",
      };
      send({
        type: "response.output_item.added",
        output_index: output.length,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      send({
        type: "response.function_call_arguments.delta",
        item_id: item.id,
        output_index: output.length,
        delta: args,
      });
      send({
        type: "response.function_call_arguments.done",
        item_id: item.id,
        output_index: output.length,
        arguments: args,
      });
      send({ type: "response.output_item.done", output_index: output.length, item });
      output.push(item);
    }
    if (reply.text !== undefined) {
      const part = { type: "output_text", text: reply.text, annotations: [] };
      const messageId = id("msg");
      const index = output.length;
      send({
        type: "response.output_item.added",
        output_index: index,
        item: { type: "message", id: messageId, role: "assistant", status: "in_progress", content: [] },
      });
      send({
        type: "response.content_part.added",
        item_id: messageId,
        output_index: index,
        content_index: 0,
        part: { ...part, text: "" },
      });
      send({
        type: "response.output_text.delta",
        item_id: messageId,
        output_index: index,
        content_index: 0,
        delta: reply.text,
      });
      send({
        type: "response.output_text.done",
        item_id: messageId,
        output_index: index,
        content_index: 0,
        text: reply.text,
      });
      send({
        type: "response.content_part.done",
        item_id: messageId,
        output_index: index,
        content_index: 0,
        part,
      });
      const item = {
        type: "message",
        id: messageId,
        role: "assistant",
        status: "completed",
        content: [part],
      };
      send({ type: "response.output_item.done", output_index: index, item });
      output.push(item);
    }
    send({
      type: "response.completed",
      response: {
        ...base,
        status: "completed",
        output,
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      },
    });
    res.end();
  };

  const http = await listenOnLoopback(async (req, res, body) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "POST" || !path.endsWith("/responses")) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "not_found" } });
      return;
    }
    const request = JSON.parse(body) as ResponsesRequest;
    requests.push(request);
    await respond(res, request, await nextReply(queue, fake.fallback, request));
  });
  fake.url = `${http.baseUrl}/v1`;
  fake.close = http.close;
  return fake;
}
