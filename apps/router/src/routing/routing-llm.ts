import type { Clock, Logger } from "@phonework/runtime";
import type OpenAI from "openai";
import { nodeOfflineText, routingQuestionText } from "../chat/user-messages.ts";
import { matchesName } from "../registry/node-info.ts";
import { ASK_USER, ROUTE_TO, ROUTING_TOOLS, routingPrompt } from "./routing-prompt.ts";
import type { RoutingContext, RoutingDecision, RoutingStep } from "./routing-step.ts";
import { onlineNodes } from "./routing-step.ts";
import type { RoutingUsage } from "./routing-usage.ts";

// One single-shot call (no history, no loop) when the cheap steps could not decide. The answer
// is checked, never trusted: an unknown node, a malformed call, a slow or failing model all
// return undefined, and routing falls back to the active node.

export interface RoutingLlmDeps {
  /** The SDK client, made at the first call (a router that never asks the model never loads it). */
  openClient: () => Promise<OpenAI>;
  model: string;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  /** Where each call's reported usage is recorded (router.db). */
  usage?: Pick<RoutingUsage, "record">;
}

type ToolCall = { function?: { name?: string; arguments?: string } };

function parseArguments(raw: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw ?? "");
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The model's tool call as a routing decision, or undefined if it is not one we can act on. */
export function interpretRoutingCall(
  calls: readonly ToolCall[] | undefined,
  ctx: RoutingContext,
  now: number,
): RoutingDecision | undefined {
  if (calls?.length !== 1) return undefined;
  const name = calls[0]?.function?.name;
  const args = parseArguments(calls[0]?.function?.arguments);
  if (name === ROUTE_TO && typeof args?.node_id === "string") {
    const node = ctx.nodes.find((n) => matchesName(n, String(args.node_id)));
    if (!node) return undefined;
    if (node.status !== "online") return { kind: "reply", text: nodeOfflineText(node, now) };
    return { kind: "forward", nodeId: node.nodeId, reason: "routing-llm" };
  }
  if (name === ASK_USER && typeof args?.question === "string") {
    const question = args.question.trim();
    if (question && question.length <= 1000) return { kind: "reply", text: routingQuestionText(question) };
  }
  return undefined;
}

/** Accounting must never change a routing decision: a failure to record is logged only. */
function recordUsage(deps: RoutingLlmDeps, userId: string, model: string, usage: object): void {
  try {
    deps.usage?.record(userId, model, usage);
  } catch (error) {
    deps.logger.warn({ err: error }, "could not record the routing LLM's usage");
  }
}

export function routingLlmStep(deps: RoutingLlmDeps): RoutingStep {
  const log = deps.logger.child({ component: "routing-llm" });
  return async (ctx) => {
    if (onlineNodes(ctx.nodes).length < 2) return undefined; // nothing to choose between
    const started = deps.clock.now();
    try {
      const client = await deps.openClient();
      const completion = await client.chat.completions.create(
        {
          model: deps.model,
          messages: [
            { role: "system", content: routingPrompt(ctx, started) },
            { role: "user", content: ctx.text },
          ],
          tools: ROUTING_TOOLS,
          tool_choice: "auto",
          temperature: 0,
        },
        { timeout: deps.timeoutMs, maxRetries: 0, signal: AbortSignal.timeout(deps.timeoutMs) },
      );
      if (completion.usage) recordUsage(deps, ctx.userId, completion.model || deps.model, completion.usage);
      const message = completion.choices[0]?.message;
      const decision = interpretRoutingCall(message?.tool_calls as ToolCall[] | undefined, ctx, started);
      if (!decision) log.warn({ userId: ctx.userId, answer: message }, "routing LLM answer not usable");
      return decision;
    } catch (error) {
      log.warn({ err: error, userId: ctx.userId, ms: deps.clock.now() - started }, "routing LLM failed");
      return undefined;
    }
  };
}
