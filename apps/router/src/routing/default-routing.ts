import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import type OpenAI from "openai";
import { type RouterConfig, routingLlmSettings } from "../config/router-config.ts";
import { onlyOnlineNodeStep, sessionOwnerStep } from "./basic-steps.ts";
import { explicitTargetStep } from "./explicit-target.ts";
import { routingLlmStep } from "./routing-llm.ts";
import type { RoutingStep } from "./routing-step.ts";
import { RoutingUsage } from "./routing-usage.ts";

/**
 * The routing order, cheapest first (router commands are answered before routing starts):
 * an explicit `@node`, the only online node, the owner of the user's active session, then the
 * routing LLM if one is configured. What none of them decides goes to the active node.
 */
export function defaultRoutingSteps(
  config: RouterConfig,
  clock: Clock,
  logger: Logger,
  db?: SqliteDatabase,
): RoutingStep[] {
  const steps = [explicitTargetStep(clock), onlyOnlineNodeStep, sessionOwnerStep];
  const llm = routingLlmSettings(config);
  logger.info({ routingLlm: llm ? { model: llm.model, baseURL: llm.baseURL } : false }, "routing configured");
  if (!llm) return steps;
  let client: Promise<OpenAI> | undefined;
  const openClient = () =>
    (client ??= import("openai").then(
      ({ default: OpenAI }) =>
        new OpenAI({
          apiKey: llm.apiKey,
          ...(llm.baseURL ? { baseURL: llm.baseURL } : {}),
          maxRetries: 0,
          timeout: llm.timeoutMs,
        }),
    ));
  // What the routing LLM spends is kept in router.db, USAGE_RETENTION_DAYS long.
  const usage = db ? new RoutingUsage(db, () => clock.now()) : undefined;
  usage?.keep(config.USAGE_RETENTION_DAYS);
  return [
    ...steps,
    routingLlmStep({
      openClient,
      model: llm.model,
      timeoutMs: llm.timeoutMs,
      clock,
      logger,
      ...(usage ? { usage } : {}),
    }),
  ];
}
