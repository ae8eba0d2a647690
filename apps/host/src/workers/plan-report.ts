import type { Logger } from "@phonework/runtime";
import { UsageLimitReached, type UsageMeter } from "../contracts/usage-meter.ts";
import { meteredModel } from "../model/metered-model.ts";
import { describeProviderError, type ModelClient } from "../model/model-client.ts";
import type { PlanRow, SubtaskRow } from "./plan-ledger.ts";

// The plan's final report: the master model is called once with every subtask's result and
// failure and writes the summary the user reads. Without a model (or when it fails) the results
// are listed as they are. A plan whose parts all failed says so first, with each error.

const REPORT_PROMPT = [
  "You are the PhoneWork assistant acting as the master of a plan: workers ran its subtasks and reported back.",
  "Write the final report for the user, who reads it on a phone: start with 'Task complete.' (or 'Task partly done.' / 'Task failed.'),",
  "then a short summary of the key results — counts, names, what was changed — and any failures with their reason and what the user could do.",
  "Only report what the results say; do not invent. Be concise.",
].join(" ");

function outcomeOf(subtask: SubtaskRow) {
  return {
    id: subtask.id,
    objective: subtask.objective,
    state: subtask.state,
    node: subtask.node ?? "here",
    attempts: subtask.attempts,
    ...(subtask.result
      ? {
          status: subtask.result.status,
          result: subtask.result.result.slice(0, 4000),
          ...(subtask.result.details ? { details: subtask.result.details.slice(0, 4000) } : {}),
          artifacts: subtask.result.artifacts,
          errors: subtask.result.errors,
        }
      : {}),
    ...(subtask.last_error && subtask.state !== "COMPLETED" ? { error: subtask.last_error } : {}),
  };
}

function listed(subtasks: readonly SubtaskRow[]): string {
  return subtasks
    .map((s) =>
      s.state === "COMPLETED"
        ? `✅ [${s.id}] ${s.result?.result ?? "done"}`
        : `❌ [${s.id}] ${s.state.toLowerCase()}: ${s.last_error ?? "no reason given"}`,
    )
    .join("\n");
}

export function createReportWriter(model: ModelClient | undefined, logger: Logger, meter?: UsageMeter) {
  return async (plan: PlanRow, subtasks: SubtaskRow[]): Promise<string> => {
    const tag = {
      userId: plan.user_id,
      chatId: plan.chat_id,
      platform: plan.platform,
      kind: "report" as const,
    };
    const reporter = model && meter ? meteredModel(model, meter, { ...tag, planId: plan.id }) : model;
    const allFailed = subtasks.every((s) => s.state !== "COMPLETED");
    const header = allFailed
      ? `❌ Plan ${plan.id} failed: every part failed.\n${subtasks.map((s) => `• [${s.id}] ${s.last_error ?? s.state}`).join("\n")}`
      : "";
    if (!reporter) return header || `Plan ${plan.id} finished.\n${listed(subtasks)}`;
    try {
      const answer = await reporter.complete({
        messages: [
          { role: "system", content: REPORT_PROMPT },
          {
            role: "user",
            content: JSON.stringify(
              { request: plan.goal, plan: plan.id, subtasks: subtasks.map(outcomeOf) },
              null,
              1,
            ),
          },
        ],
        tools: [],
        signal: AbortSignal.timeout(120_000),
      });
      const text = answer.content?.trim() || listed(subtasks);
      return header ? `${header}\n\n${text}` : text;
    } catch (error) {
      logger.warn(
        { planId: plan.id, reason: describeProviderError(error) },
        "the report model failed; listing results",
      );
      const why =
        error instanceof UsageLimitReached
          ? `Plan ${plan.id} finished without a summary. ⛔ ${error.message}`
          : `Plan ${plan.id} finished (the model could not write a summary).`;
      return [header, why, listed(subtasks)].filter(Boolean).join("\n");
    }
  };
}
