import type { Logger } from "@phonework/runtime";
import {
  describeZodError,
  type FinalAnswer,
  type Tool,
  type ToolContext,
  ToolError,
  toolSpec,
} from "../contracts/tool.ts";
import { clipDetail, RESULT_DETAIL_MAX, toolCallDetail, usageDetail } from "../contracts/turn-detail.ts";
import { UsageLimitReached } from "../contracts/usage-meter.ts";
import type { ChatMessage, ToolCall } from "./chat-message.ts";
import { describeProviderError, type ModelClient } from "./model-client.ts";

// The tool-calling loop. It never throws: a tool failure becomes an error result the model
// reads, a provider failure ends the turn with a clear reply, and it stops after maxSteps.
// Where the chat shows details (context.detail), each call and its clipped result go there as
// they happen, and the turn's token usage (summed over its model calls) once it ends.

export type StopReason = "done" | "max_steps" | "provider_error" | "aborted" | "limit";

export interface AgentRunOptions {
  model: ModelClient;
  tools: Tool[];
  /** Tools that exist but are switched off here, with the reason the model is told. */
  unavailableTools?: Record<string, string>;
  systemPrompt: string;
  history: ChatMessage[];
  input: string;
  /** Images for this turn, as data URLs: sent with the input, never stored (the input names their files). */
  images?: string[];
  maxSteps: number;
  context: ToolContext;
  logger: Logger;
}

export interface AgentRunResult {
  reply: string;
  stopReason: StopReason;
  /** Messages this turn added (user input through the final answer), for the history. */
  added: ChatMessage[];
  toolCalls: number;
}

async function runTool(
  call: ToolCall,
  options: AgentRunOptions,
  byName: Map<string, Tool>,
): Promise<string | FinalAnswer> {
  const { name } = call.function;
  const tool = byName.get(name);
  if (!tool) {
    const off = options.unavailableTools?.[name];
    return off ? `Error: ${off}` : `Error: there is no tool named "${name}"`;
  }
  let raw: unknown;
  try {
    raw = call.function.arguments.trim() ? JSON.parse(call.function.arguments) : {};
  } catch {
    return `Error: the arguments for ${name} are not valid JSON: ${call.function.arguments.slice(0, 200)}`;
  }
  const parsed = tool.schema.safeParse(raw);
  if (!parsed.success) return `Error: invalid arguments for ${name}: ${describeZodError(parsed.error)}`;
  const line = tool.describe?.(parsed.data);
  options.context.progress(line ?? `using ${name}`);
  options.context.detail?.("tool", toolCallDetail(name, parsed.data));
  const result = await executeTool(tool, parsed.data, call, options);
  // A final answer is the turn's reply itself: shown as the answer, not as a detail.
  if (typeof result === "string") options.context.detail?.("result", clipDetail(result, RESULT_DETAIL_MAX));
  return result;
}

async function executeTool(
  tool: Tool,
  args: unknown,
  call: ToolCall,
  options: AgentRunOptions,
): Promise<string | FinalAnswer> {
  try {
    return await tool.execute(args, { ...options.context, toolCallId: call.id });
  } catch (error) {
    if (error instanceof ToolError) return `Error: ${error.message}`;
    options.logger.warn({ err: error, tool: tool.name }, "tool failed");
    return `Error: ${tool.name} failed: ${(error as Error)?.message ?? String(error)}`;
  }
}

/** Runs the loop; where details are shown, the turn's usage goes out last, whatever ended it. */
export async function runAgentLoop(options: AgentRunOptions): Promise<AgentRunResult> {
  const usage: TurnUsage = { input: 0, output: 0, reported: false };
  const result = await runSteps(options, usage);
  if (usage.reported) options.context.detail?.("usage", usageDetail(usage));
  return result;
}

type TurnUsage = { input: number; output: number; costUsd?: number; reported: boolean };

async function runSteps(options: AgentRunOptions, usage: TurnUsage): Promise<AgentRunResult> {
  const { context, logger } = options;
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const specs = options.tools.map(toolSpec);
  const added: ChatMessage[] = [{ role: "user", content: options.input }];
  // What the model is shown of the input: with the images, at every step of this turn.
  const input: ChatMessage = options.images?.length
    ? {
        role: "user",
        content: [
          { type: "text", text: options.input },
          ...options.images.map((url) => ({ type: "image_url" as const, image_url: { url } })),
        ],
      }
    : { role: "user", content: options.input };
  let toolCalls = 0;

  const finish = (reply: string, stopReason: StopReason, note = reply): AgentRunResult => {
    added.push({ role: "assistant", content: note });
    return { reply, stopReason, added, toolCalls };
  };

  for (let step = 0; step < options.maxSteps; step++) {
    if (context.signal.aborted) return finish("⏹️ Stopped.", "aborted", "(stopped by the user)");
    let answer: Awaited<ReturnType<ModelClient["complete"]>>;
    try {
      answer = await options.model.complete({
        messages: [
          { role: "system", content: options.systemPrompt },
          ...options.history,
          input,
          ...added.slice(1),
        ],
        tools: specs,
        signal: context.signal,
      });
    } catch (error) {
      if (context.signal.aborted) return finish("⏹️ Stopped.", "aborted", "(stopped by the user)");
      // A usage limit reached: the model was not called; the sentence says which and when it resets.
      if (error instanceof UsageLimitReached) return finish(`⛔ ${error.message}`, "limit");
      const reason = describeProviderError(error);
      logger.warn({ reason }, "model provider failed");
      return finish(
        `⚠️ The model provider failed (${reason}). Nothing was lost; send your message again in a moment.`,
        "provider_error",
        "(the model provider failed before I could answer)",
      );
    }
    if (answer.usage) {
      usage.input += answer.usage.input;
      usage.output += answer.usage.output;
      if (answer.usage.costUsd !== undefined) usage.costUsd = (usage.costUsd ?? 0) + answer.usage.costUsd;
      usage.reported = true;
    }
    if (answer.toolCalls.length === 0) {
      const reply = answer.content?.trim() || "(the model returned an empty answer)";
      added.push({ role: "assistant", content: reply });
      return { reply, stopReason: "done", added, toolCalls };
    }
    added.push({ role: "assistant", content: answer.content, tool_calls: answer.toolCalls });
    let final: string | undefined;
    for (const call of answer.toolCalls) {
      toolCalls++;
      const result = context.signal.aborted
        ? "Error: cancelled by the user"
        : await runTool(call, options, byName);
      if (typeof result !== "string") final = result.final;
      added.push({
        role: "tool",
        tool_call_id: call.id,
        content: typeof result === "string" ? result : result.final,
      });
    }
    // A tool that produced the answer itself (a coding agent's reply) ends the turn unparaphrased.
    if (final !== undefined) return finish(final, "done", "(the answer above was sent to the user as is)");
  }
  return finish(
    `I stopped after ${options.maxSteps} steps without finishing. Ask me to continue, or narrow the request.`,
    "max_steps",
  );
}
