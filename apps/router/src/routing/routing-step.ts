import type { NodeInfo } from "../registry/node-info.ts";

// Routing is a list of steps tried in order, cheapest first; the first decision wins.
// default-routing.ts lists the order: explicit target, only online node, session owner, routing LLM,
// then `fallbackToActiveNode`.

export interface RoutingContext {
  userId: string;
  text: string;
  /** Every node that serves this user, online or not. */
  nodes: NodeInfo[];
  activeNodeId: string | undefined;
}

export type RoutingDecision =
  /** `text`, when set, replaces the message (an `@node` prefix removed). */
  | { kind: "forward"; nodeId: string; reason: string; text?: string }
  /** Answer the user directly; `activeNodeId`, when set, becomes their active node. */
  | { kind: "reply"; text: string; activeNodeId?: string };

export type RoutingStep = (
  ctx: RoutingContext,
) => RoutingDecision | undefined | Promise<RoutingDecision | undefined>;

export async function routeMessage(
  ctx: RoutingContext,
  steps: readonly RoutingStep[],
  fallback: (ctx: RoutingContext) => RoutingDecision,
): Promise<RoutingDecision> {
  for (const step of steps) {
    const result = step(ctx);
    // Awaited only when the step is asynchronous (the routing LLM): the cheap steps answer at once,
    // and an await each would cost every forwarded message a turn of the microtask queue.
    const decision = isThenable(result) ? await result : result;
    if (decision) return decision;
  }
  return fallback(ctx);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

export const onlineNodes = (nodes: readonly NodeInfo[]) => nodes.filter((n) => n.status === "online");
