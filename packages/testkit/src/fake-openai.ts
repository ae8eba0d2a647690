import type { ServerResponse } from "node:http";
import { nextReply, waitWhileOpen } from "./scripted-replies.ts";
import { listenOnLoopback, sendJson } from "./shared/http-server.ts";

// An OpenAI-compatible chat completions server. Tests script its answers (text, tool calls,
// errors, delays) and read back every request to assert what the model was shown.

/** A part of a user message: text, or an image (a data URL or a link). */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } };

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content?: string | ContentPart[] | null;
    tool_calls?: unknown[];
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  [key: string]: unknown;
}

export interface ToolCallScript {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/**
 * Tokens a reply reports (default 1 in, 1 out), sent as is: a test may forge one (negative, huge,
 * not a number) to see what the host makes of it. A streamed reply sends it in a last chunk when
 * the request asked for it (`stream_options.include_usage`), as the OpenAI API does.
 */
export interface UsageScript {
  prompt_tokens: unknown;
  completion_tokens: unknown;
  prompt_tokens_details?: { cached_tokens: unknown };
}

const totalOf = (usage: UsageScript) =>
  typeof usage.prompt_tokens === "number" && typeof usage.completion_tokens === "number"
    ? usage.prompt_tokens + usage.completion_tokens
    : 0;

export type Reply =
  | { text: string; usage?: UsageScript }
  | { toolCalls: ToolCallScript[]; text?: string; usage?: UsageScript }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { delayMs: number; reply: Reply };

export type ScriptStep = Reply | ((request: ChatRequest) => Reply | Promise<Reply>);

export interface FakeOpenAI {
  /** Base URL including /v1, as OPENAI_BASE_URL expects. */
  url: string;
  requests: ChatRequest[];
  /** Queues replies, used in order; when the queue is empty, `fallback` answers. */
  script(...steps: ScriptStep[]): void;
  fallback: (request: ChatRequest) => Reply;
  /** Last user message of a request (its text parts, joined by newlines). */
  lastUserText(request?: ChatRequest): string;
  /** The image URLs (data URLs) in the last user message of a request, in order. */
  imageUrls(request?: ChatRequest): string[];
  /** Contents of the tool results in a request, in order. */
  toolResults(request?: ChatRequest): string[];
  /** Names of the tools a request offered the model. */
  toolNames(request?: ChatRequest): string[];
  close(): Promise<void>;
}

let callCounter = 0;

export interface FakeOpenAIOptions {
  apiKey?: string;
  /**
   * false: the model does not read images, and answers a request with an image part 400 as such
   * endpoints do ("image input is not supported"). Default true.
   */
  vision?: boolean;
}

const partsOf = (content: string | ContentPart[] | null | undefined): ContentPart[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : (content ?? []);

/** Whether a request carries an image anywhere in its messages. */
export const hasImagePart = (request: ChatRequest) =>
  request.messages.some((m) => partsOf(m.content).some((part) => part.type === "image_url"));

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: ScriptStep[] = [];
  const requests: ChatRequest[] = [];
  const lastUser = (request?: ChatRequest) =>
    partsOf(
      [...((request ?? requests.at(-1))?.messages ?? [])].reverse().find((m) => m.role === "user")?.content,
    );
  const lastUserText = (request?: ChatRequest) =>
    lastUser(request)
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("\n");
  const fake: FakeOpenAI = {
    url: "",
    requests,
    script: (...steps) => queue.push(...steps),
    fallback: (request) => ({ text: `fake-model: ${lastUserText(request)}` }),
    lastUserText,
    imageUrls: (request) =>
      lastUser(request).flatMap((part) => (part.type === "image_url" ? [part.image_url.url] : [])),
    toolResults: (request) =>
      ((request ?? requests.at(-1))?.messages ?? [])
        .filter((m) => m.role === "tool")
        .map((m) => String(m.content)),
    toolNames: (request) => ((request ?? requests.at(-1))?.tools ?? []).map((t) => t.function.name),
    close: async () => {},
  };

  const respond = async (res: ServerResponse, request: ChatRequest, reply: Reply): Promise<void> => {
    if ("delayMs" in reply) {
      if (await waitWhileOpen(res, reply.delayMs)) await respond(res, request, reply.reply);
      return;
    }
    if ("status" in reply) {
      sendJson(
        res,
        reply.status,
        reply.body ?? { error: { message: `fake error ${reply.status}` } },
        reply.headers,
      );
      return;
    }
    const toolCalls =
      "toolCalls" in reply
        ? reply.toolCalls.map((call) => ({
            id: call.id ?? `call_${++callCounter}`,
            type: "function" as const,
            function: {
              name: call.name,
              arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
            },
          }))
        : undefined;
    const content = reply.text ?? null;
    const usage = reply.usage ?? { prompt_tokens: 1, completion_tokens: 1 };
    const withUsage = (request.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
    if (request.stream)
      return streamReply(
        res,
        request.model,
        content,
        toolCalls,
        withUsage ? { ...usage, total_tokens: totalOf(usage) } : undefined,
      );
    sendJson(res, 200, {
      id: `chatcmpl-${++callCounter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls ? "tool_calls" : "stop",
        },
      ],
      usage: { ...usage, total_tokens: totalOf(usage) },
    });
  };

  const http = await listenOnLoopback(async (req, res, body) => {
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJson(res, 401, { error: { message: "invalid api key", type: "invalid_request_error" } });
      return;
    }
    if (req.method === "GET" && req.url === "/v1/models") {
      sendJson(res, 200, { object: "list", data: [{ id: "fake-model", object: "model" }] });
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    const request = JSON.parse(body) as ChatRequest;
    requests.push(request);
    if (options.vision === false && hasImagePart(request)) {
      sendJson(res, 400, {
        error: { message: "image input is not supported by this model", type: "invalid_request_error" },
      });
      return;
    }
    await respond(res, request, await nextReply(queue, fake.fallback, request));
  });
  fake.url = `${http.baseUrl}/v1`;
  fake.close = http.close;
  return fake;
}

/** Server-sent events in the shape the OpenAI SDK's stream parser expects. */
function streamReply(
  res: ServerResponse,
  model: string,
  content: string | null,
  toolCalls:
    | Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>
    | undefined,
  usage?: object,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const id = `chatcmpl-${++callCounter}`;
  const chunk = (delta: object, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  chunk({ role: "assistant", content: "" });
  for (const piece of content?.match(/.{1,8}/gs) ?? []) chunk({ content: piece });
  toolCalls?.forEach((call, index) => {
    chunk({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
      ],
    });
    chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
  });
  chunk({}, toolCalls ? "tool_calls" : "stop");
  if (usage)
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage })}\n\n`,
    );
  res.end("data: [DONE]\n\n");
}
