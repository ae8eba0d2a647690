import type { NodeInfo } from "../registry/node-info.ts";

// Routing is a list of steps tried in order, cheapest first; the first decision wins.
// This is the seam where later steps (explicit @node targets, session owners, a routing LLM) slot in.

export interface RoutingContext {
  userId: string;
  text: string;
  /** Every node that serves this user, online or not. */
  nodes: NodeInfo[];
  activeNodeId: string | undefined;
}

export type RoutingDecision =
  | { kind: "forward"; nodeId: string; reason: string }
  | { kind: "reply"; text: string };

export type RoutingStep = (
  ctx: RoutingContext,
) => RoutingDecision | undefined | Promise<RoutingDecision | undefined>;

export async function routeMessage(
  ctx: RoutingContext,
  steps: readonly RoutingStep[],
  fallback: (ctx: RoutingContext) => RoutingDecision,
): Promise<RoutingDecision> {
  for (const step of steps) {
    const decision = await step(ctx);
    if (decision) return decision;
  }
  return fallback(ctx);
}
