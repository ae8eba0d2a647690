import type OpenAI from "openai";
import { APIError } from "openai/error";
import type { ToolSpec } from "../contracts/tool.ts";
import type { ChatMessage, ToolCall } from "./chat-message.ts";

// The model behind the agent loop, as an interface so the loop can be driven by anything.
// The OpenAI SDK implementation retries 429 and 5xx with backoff (honouring Retry-After). The SDK
// is loaded at the first request, so a host at rest does not hold it.

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  /** Tokens the request read (cached ones included) and wrote, when the API said (`usage`). */
  usage?: { input: number; output: number; cachedInput?: number; model?: string; costUsd?: number };
}

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelReply>;
}

export interface OpenAIModelOptions {
  baseURL?: string;
  apiKey: string;
  model: string;
  maxRetries: number;
  timeoutMs?: number;
}

export function createOpenAIModelClient(options: OpenAIModelOptions): ModelClient {
  let client: Promise<OpenAI> | undefined;
  const openClient = () =>
    (client ??= import("openai").then(
      ({ default: OpenAI }) =>
        new OpenAI({
          apiKey: options.apiKey,
          maxRetries: options.maxRetries,
          timeout: options.timeoutMs ?? 120_000,
          ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        }),
    ));
  return {
    async complete({ messages, tools, signal }) {
      const response = await (await openClient()).chat.completions.create(
        {
          model: options.model,
          messages,
          ...(tools.length > 0 ? { tools, tool_choice: "auto" as const } : {}),
        },
        { signal },
      );
      const message = response.choices[0]?.message;
      if (!message) throw new Error("the model returned no choices");
      const toolCalls = (message.tool_calls ?? [])
        .filter((call) => call.type === "function")
        .map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.function.name, arguments: call.function.arguments ?? "" },
        }));
      const { usage } = response;
      return {
        content: message.content ?? null,
        toolCalls,
        ...(usage
          ? {
              usage: {
                input: usage.prompt_tokens ?? 0,
                output: usage.completion_tokens ?? 0,
                cachedInput: usage.prompt_tokens_details?.cached_tokens ?? 0,
                model: typeof response.model === "string" && response.model ? response.model : options.model,
              },
            }
          : {}),
      };
    },
  };
}

/** A short, user-readable reason for a provider failure. */
export function describeProviderError(error: unknown): string {
  if (error instanceof APIError) {
    const status = error.status ? `HTTP ${error.status}` : "no response";
    return `${status}: ${error.message}`.slice(0, 300);
  }
  return error instanceof Error ? error.message : String(error);
}
