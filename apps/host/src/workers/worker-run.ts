import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WorkerOutcome, WorkerResult } from "@phonework/protocol";
import { capText, type Logger } from "@phonework/runtime";
import { type Tool, type ToolContext, ToolError } from "../contracts/tool.ts";
import { runAgentLoop } from "../model/agent-loop.ts";
import type { ChatMessage } from "../model/chat-message.ts";
import { describeProviderError, type ModelClient } from "../model/model-client.ts";
import {
  hostAnswer,
  outcomeOf,
  parseWorkerAnswer,
  repairAnswer,
  type WorkerAnswer,
} from "./worker-answer.ts";
import { type WorkerTask, workerPrompt } from "./worker-prompt.ts";

// One ephemeral worker: a fresh agent loop with no history, only the task's tools, a scratch
// directory removed at the end, and a TTL after which it and everything it started are killed.

export type { WorkerTask } from "./worker-prompt.ts";

export interface WorkerRunDeps {
  model: ModelClient;
  /** Already limited to the task's skills by the caller. */
  tools: Tool[];
  /** Parent of the worker's scratch directory (default os.tmpdir()). */
  scratchRoot?: string;
  maxSteps: number;
  now: () => number;
  logger: Logger;
  /** Who the work is for (tool context). */
  owner: { userId: string; chatId: string; platform: string; isolated?: boolean };
  progress?: (line: string) => void;
  sendFile?: ToolContext["sendFile"];
}

export interface WorkerRun {
  outcome: WorkerOutcome;
  result: WorkerResult;
}

/** How long a stopped worker may wind down (run_shell escalates to SIGKILL at 2s) before it is left behind. */
export const WORKER_STOP_GRACE_MS = 3000;
const MAX_RAW_ANSWER_CHARS = 16_000;

const refuseFiles = () => Promise.reject(new ToolError("a worker cannot send files; list them in artifacts"));
const reasonText = (reason: unknown) =>
  reason instanceof Error ? reason.message : String(reason ?? "stopped by the caller");

/** Runs the loop and reads its answer; undefined when it was stopped (the caller knows why). */
async function attempt(task: WorkerTask, deps: WorkerRunDeps, signal: AbortSignal, scratch: string) {
  let providerError = "unknown error";
  // The loop turns provider failures into user-facing text; keep the reason for the result.
  const model: ModelClient = {
    complete: (request) =>
      deps.model.complete(request).catch((error: unknown) => {
        providerError = describeProviderError(error);
        throw error;
      }),
  };
  const systemPrompt = workerPrompt({ ...task, skills: deps.tools.map((tool) => tool.name) }, scratch);
  const run = await runAgentLoop({
    model,
    tools: deps.tools,
    systemPrompt,
    history: [],
    input: `Do task ${task.taskId} now, then reply with only its JSON result.`,
    maxSteps: deps.maxSteps,
    context: {
      signal,
      ...deps.owner,
      scratchDir: scratch, // its commands write here, not in the chat's scratch/
      progress: deps.progress ?? (() => {}),
      sendFile: deps.sendFile ?? refuseFiles,
    },
    logger: deps.logger,
  });
  if (run.stopReason === "aborted" || signal.aborted) return undefined;
  const fail = (error: string) => hostAnswer(task.taskId, "failed", error, [error]);
  if (run.stopReason === "provider_error") return fail(`the model provider failed: ${providerError}`);
  if (run.stopReason === "limit") return fail(run.reply.replace(/^⛔ /, ""));
  if (run.stopReason === "max_steps") return fail(`stopped after ${deps.maxSteps} steps without an answer`);
  const first = parseWorkerAnswer(run.reply, task.taskId);
  if (first.ok) return first.result;

  const conversation: ChatMessage[] = [{ role: "system", content: systemPrompt }, ...run.added];
  const repaired = await repairAnswer(deps.model, conversation, task.taskId, signal);
  if (repaired || signal.aborted) return repaired;
  return hostAnswer(task.taskId, "partial", capText(run.reply, MAX_RAW_ANSWER_CHARS), [
    `the answer was not in the result format (${first.reason})`,
  ]);
}

export async function runWorker(
  task: WorkerTask,
  deps: WorkerRunDeps,
  signal: AbortSignal,
): Promise<WorkerRun> {
  const started = deps.now();
  const logger = deps.logger.child({ taskId: task.taskId });
  const controller = new AbortController();
  let stopped: { outcome: WorkerOutcome; error: string } | undefined;
  const stop = (outcome: WorkerOutcome, error: string) => {
    stopped ??= { outcome, error };
    controller.abort(new Error(stopped.error));
  };
  const onCallerAbort = () => stop("failed", `cancelled: ${reasonText(signal.reason)}`);
  const ttl = setTimeout(() => stop("timeout", `timed out after ${task.ttlS}s`), task.ttlS * 1000);
  if (signal.aborted) onCallerAbort();
  else signal.addEventListener("abort", onCallerAbort, { once: true });
  // A tool that ignores the abort must not hold the caller: after the grace, return without it.
  let grace: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<undefined>((resolve) => {
    const startGrace = () => {
      grace = setTimeout(() => resolve(undefined), WORKER_STOP_GRACE_MS);
    };
    controller.signal.addEventListener("abort", startGrace, { once: true });
  });
  let scratch: string | undefined;
  let answer: WorkerAnswer | undefined;
  try {
    const prefix = `phonework-worker-${task.taskId.replace(/[^\w.-]/g, "_").slice(0, 64)}-`;
    scratch = await mkdtemp(join(deps.scratchRoot ?? tmpdir(), prefix));
    const work = attempt(task, { ...deps, logger }, controller.signal, scratch).catch((error: unknown) => {
      logger.error({ err: error }, "worker failed");
      return hostAnswer(task.taskId, "failed", "the worker failed", [reasonText(error)]);
    });
    answer = await Promise.race([work, gaveUp]);
  } catch (error) {
    answer = hostAnswer(task.taskId, "failed", "no scratch directory", [reasonText(error)]);
  } finally {
    clearTimeout(ttl);
    signal.removeEventListener("abort", onCallerAbort);
    if (!controller.signal.aborted) controller.abort(new Error("the worker finished"));
    clearTimeout(grace);
    if (scratch) {
      await rm(scratch, { recursive: true, force: true, maxRetries: 3 }).catch((error: unknown) =>
        logger.warn({ err: error, scratch }, "could not remove the worker's scratch directory"),
      );
    }
  }
  // No answer means it was stopped; an answer that arrived anyway (the TTL fired just after) wins.
  const outcome = answer ? outcomeOf(answer.status) : (stopped?.outcome ?? "failed");
  const error = stopped?.error ?? "stopped";
  answer ??= hostAnswer(task.taskId, "failed", `The worker was stopped: ${error}`, [error]);
  const duration = Math.max(0, Math.round(deps.now() - started) / 1000);
  logger.info({ outcome, status: answer.status, duration }, "worker finished");
  return { outcome, result: { ...answer, duration } };
}
