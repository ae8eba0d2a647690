import type { ServerResponse } from "node:http";
import { nextReply, waitWhileOpen } from "./scripted-replies.ts";
import { listenOnLoopback, sendJson } from "./shared/http-server.ts";

// An Anthropic Messages API for the real `claude` CLI to talk to (ANTHROPIC_BASE_URL).
// Tests script the model's turns — text, or a tool_use such as Claude Code's Bash — and read
// back every request to see what the CLI sent (tool results, earlier turns on --resume).

export interface AnthropicRequest {
  model: string;
  system?: unknown;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  tools?: Array<{ name: string }>;
  stream?: boolean;
  [key: string]: unknown;
}

export type AnthropicReply =
  | { text: string }
  | { toolUse: { name: string; input: Record<string, unknown>; id?: string }; text?: string }
  | { status: number; body?: unknown }
  | { delayMs: number; reply: AnthropicReply };

export type AnthropicStep =
  | AnthropicReply
  | ((request: AnthropicRequest) => AnthropicReply | Promise<AnthropicReply>);

export interface FakeAnthropic {
  /** For ANTHROPIC_BASE_URL (no /v1). */
  url: string;
  /** Every /v1/messages request, including the CLI's own side requests. */
  requests: AnthropicRequest[];
  /** Requests that carried Claude Code's tools: the agent's actual turns. */
  agentRequests(): AnthropicRequest[];
  script(...steps: AnthropicStep[]): void;
  fallback: (request: AnthropicRequest) => AnthropicReply;
  /** Text of every user message in a request (string content and text blocks). */
  userTexts(request?: AnthropicRequest): string[];
  /** Contents of tool_result blocks in a request. */
  toolResults(request?: AnthropicRequest): string[];
  close(): Promise<void>;
}

let counter = 0;

function blockText(block: Record<string, unknown>): string {
  if (typeof block.text === "string") return block.text;
  if (typeof block.content === "string") return block.content;
  if (Array.isArray(block.content))
    return block.content.map((b) => blockText(b as Record<string, unknown>)).join("");
  return "";
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queue: AnthropicStep[] = [];
  const requests: AnthropicRequest[] = [];
  const isAgentTurn = (request: AnthropicRequest) => (request.tools ?? []).some((t) => t.name === "Bash");
  const userTexts = (request?: AnthropicRequest) =>
    ((request ?? requests.at(-1))?.messages ?? [])
      .filter((m) => m.role === "user")
      .flatMap((m) =>
        typeof m.content === "string"
          ? [m.content]
          : m.content.filter((b) => b.type === "text").map((b) => blockText(b)),
      );
  const fake: FakeAnthropic = {
    url: "",
    requests,
    agentRequests: () => requests.filter(isAgentTurn),
    script: (...steps) => queue.push(...steps),
    fallback: (request) => ({ text: `fake-claude: ${userTexts(request).at(-1) ?? ""}` }),
    userTexts,
    toolResults: (request) =>
      ((request ?? requests.at(-1))?.messages ?? []).flatMap((m) =>
        typeof m.content === "string"
          ? []
          : m.content.filter((b) => b.type === "tool_result").map((b) => blockText(b)),
      ),
    close: async () => {},
  };

  const respond = async (
    res: ServerResponse,
    request: AnthropicRequest,
    reply: AnthropicReply,
  ): Promise<void> => {
    if ("delayMs" in reply) {
      if (await waitWhileOpen(res, reply.delayMs)) await respond(res, request, reply.reply);
      return;
    }
    if ("status" in reply) {
      sendJson(
        res,
        reply.status,
        reply.body ?? { type: "error", error: { type: "api_error", message: "fake error" } },
      );
      return;
    }
    const content: Array<Record<string, unknown>> = [];
    if (reply.text) content.push({ type: "text", text: reply.text });
    if ("toolUse" in reply) {
      content.push({
        type: "tool_use",
        id: reply.toolUse.id ?? `toolu_${++counter}`,
        name: reply.toolUse.name,
        input: reply.toolUse.input,
      });
    }
    const stopReason = "toolUse" in reply ? "tool_use" : "end_turn";
    const message = {
      id: `msg_${++counter}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    };
    if (!request.stream) {
      sendJson(res, 200, message);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const event = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", {
      message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } },
    });
    content.forEach((block, index) => {
      if (block.type === "text") {
        event("content_block_start", { index, content_block: { type: "text", text: "" } });
        event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      } else {
        event("content_block_start", { index, content_block: { ...block, input: {} } });
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        });
      }
      event("content_block_stop", { index });
    });
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 10 },
    });
    event("message_stop", {});
    res.end();
  };

  const http = await listenOnLoopback(async (req, res, body) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: 100 });
      return;
    }
    if (req.method !== "POST" || path !== "/v1/messages") {
      sendJson(res, 404, {
        type: "error",
        error: { type: "not_found_error", message: `no route ${req.method} ${path}` },
      });
      return;
    }
    const request = JSON.parse(body) as AnthropicRequest;
    requests.push(request);
    // Only the agent's own turns consume the script; side requests (titles, checks) get the fallback.
    await respond(res, request, await nextReply(isAgentTurn(request) ? queue : [], fake.fallback, request));
  });
  fake.url = http.baseUrl;
  fake.close = http.close;
  return fake;
}
