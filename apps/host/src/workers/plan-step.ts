import type { WorkerOutcome, WorkerResult, WorkerTaskFrame } from "@phonework/protocol";
import {
  type AttemptRow,
  dispatchedAttempt,
  ENDED,
  type PlanRow,
  type SubtaskRow,
  type Transition,
  UNDER_WAY,
} from "./plan-ledger.ts";
import {
  type AttemptEnd,
  applyTransition,
  markPlanFinished,
  markPlanStopped,
  markStepDispatched,
  markStepDone,
  markStepFailed,
  markStepSkipped,
  markStepStarted,
  type PlanRows,
} from "./plan-ledger-transitions.ts";
import { type PlanOwner, planOwner } from "./plan-owner.ts";
import { afterFailure } from "./retry-policy.ts";
import { workerContext } from "./worker-context.ts";
import { workerName } from "./worker-pool.ts";
import type { WorkerTask } from "./worker-run.ts";

// The plan runner's decisions as one pure function: given a plan's rows and what just happened,
// the rows after it and what the runner must do — ledger transitions, workers to start or stop,
// frames, a timer, the report. No I/O and no clock: the time comes in the event.
//
// A subtask starts once everything it depends on COMPLETED (it is skipped when one of them ended
// otherwise), not before its `not_before`, on a free slot here or on the node it is pinned to. A
// failed or silent attempt is retried while the subtask has retries left (see afterFailure); once
// every subtask has ended the master writes one report.

export interface PlanState extends PlanRows {
  /** How long a subtask whose node is offline waits before it asks again. */
  nodeRetryMs: number;
}

export type PlanEvent =
  /** Start what can start; finish the plan once every subtask has ended. */
  | { type: "advance"; now: number }
  /** The runner found a worker for a subtask `advance` asked to start: a slot here, or its node. */
  | { type: "dispatched"; subtaskId: string; attemptId: string; slot?: number; now: number }
  /** The attempt's node says its worker started. */
  | { type: "remoteStarted"; attemptId: string; now: number }
  /** The attempt ended: its result, or why not (`nodeOffline`: its node could not be reached). */
  | {
      type: "attemptEnded";
      attemptId: string;
      outcome: WorkerOutcome;
      result?: WorkerResult;
      error?: string;
      nodeOffline?: boolean;
      now: number;
    }
  /** The attempt's node sent nothing past its TTL and grace. */
  | { type: "remoteSilent"; attemptId: string; now: number }
  /** After a restart: the attempt (as it was) was under way when the host stopped, and is LOST now. */
  | { type: "attemptLost"; attempt: AttemptRow; now: number }
  /** /stop */
  | { type: "stop"; reason: string; now: number }
  | { type: "reportWritten"; report: string; now: number };

export type PlanAction =
  | { type: "ledger"; transition: Transition }
  /** Find a worker for the subtask (a free slot here, or `node`) and answer with `dispatched`. */
  | { type: "start"; planId: string; subtaskId: string; node: string | null }
  | { type: "runLocal"; attemptId: string; slot: number; task: WorkerTask; owner: PlanOwner }
  | { type: "sendTask"; frame: WorkerTaskFrame }
  | { type: "abort"; attemptId: string; reason: string }
  | { type: "cancelRemote"; attemptId: string; userId: string; node: string; reason: string }
  /** Advance again then. */
  | { type: "wakeAt"; at: number }
  | { type: "showProgress"; planId: string; immediately: boolean }
  | { type: "writeReport"; planId: string }
  /** Runs in the transaction of the transition before it (the outbox). */
  | { type: "deliverReport"; plan: PlanState["plan"]; report: string }
  /** Advance every running plan (a slot or a subtask's result may let another one start). */
  | { type: "pump" }
  | { type: "log"; message: string; fields: Record<string, unknown> };

export interface StepResult {
  state: PlanState;
  actions: PlanAction[];
}

export const LOST_ERROR = "lost: the host stopped while it ran";

/** Collects actions, applying each transition to the state as it goes. */
class Step {
  readonly actions: PlanAction[] = [];
  constructor(public state: PlanState) {}

  write(transition: Transition): void {
    this.state = { ...this.state, ...applyTransition(this.state, transition) };
    this.actions.push({ type: "ledger", transition });
  }

  do(...actions: PlanAction[]): void {
    this.actions.push(...actions);
  }

  subtask(id: string): SubtaskRow | undefined {
    return this.state.subtasks.find((s) => s.id === id);
  }

  attemptUnderWay(id: string): AttemptRow | undefined {
    const attempt = this.state.attempts.find((a) => a.id === id);
    return attempt && UNDER_WAY.has(attempt.state) ? attempt : undefined;
  }

  result(): StepResult {
    return { state: this.state, actions: this.actions };
  }
}

type On<T extends PlanEvent["type"]> = (step: Step, event: Extract<PlanEvent, { type: T }>) => void;

/** What each event does: one handler per event type, checked by the compiler. */
const ON: { [T in PlanEvent["type"]]: On<T> } = {
  advance: (step, { now }) => {
    if (step.state.plan.status === "running") advance(step, now);
  },
  dispatched: (step, event) => dispatched(step, event),
  remoteStarted: (step, { attemptId, now }) => {
    const attempt = step.attemptUnderWay(attemptId);
    const subtask = attempt && step.subtask(attempt.subtask_id);
    if (attempt?.state !== "DISPATCHED" || !subtask) return;
    step.write(markStepStarted(attempt, subtask, now));
    step.do(progress(step, false));
  },
  attemptEnded: (step, event) => attemptEnded(step, event),
  remoteSilent: (step, { attemptId, now }) => {
    const attempt = step.attemptUnderWay(attemptId);
    const subtask = attempt && step.subtask(attempt.subtask_id);
    if (!attempt?.node || !subtask) return;
    step.do(cancelRemote(step.state, attempt.id, attempt.node, "timed out"));
    const error = `no result from node ${attempt.node} within ${subtask.ttl_s}s`;
    attemptEnded(step, { attemptId, outcome: "timeout", error, now });
  },
  attemptLost: (step, { attempt, now }) => {
    retryOrEnd(step, attempt, null, { state: "FAILED", error: LOST_ERROR, nodeOffline: false, now });
    if (attempt.node)
      step.do(cancelRemote(step.state, attempt.id, attempt.node, "the master host restarted"));
  },
  stop: (step, { reason, now }) => stop(step, reason, now),
  reportWritten: (step, { report, now }) => {
    const { plan, subtasks } = step.state;
    if (plan.status !== "running") return; // stopped while the report was written
    const status = subtasks.some((s) => s.state === "COMPLETED") ? "done" : "failed";
    step.write(markPlanFinished(plan, status, report, now));
    step.do({ type: "deliverReport", plan: step.state.plan, report }, progress(step, true), {
      type: "log",
      message: "plan finished",
      fields: { planId: plan.id, status },
    });
  },
};

export function planStep(state: PlanState, event: PlanEvent): StepResult {
  const step = new Step(state);
  (ON[event.type] as On<PlanEvent["type"]>)(step, event);
  return step.result();
}

function advance(step: Step, now: number): void {
  for (const subtask of step.state.subtasks) {
    if (subtask.state !== "PENDING") continue;
    // Read afresh: a subtask skipped earlier in this loop skips those that need it.
    const deps = subtask.depends_on.map((id) => step.subtask(id));
    const failed = deps.find((d) => d && ENDED.has(d.state) && d.state !== "COMPLETED");
    if (failed) {
      const how = failed.state === "CANCELLED" ? "was cancelled" : "failed";
      step.write(markStepSkipped(subtask, `skipped: it needed [${failed.id}], which ${how}`, now));
      continue;
    }
    if (deps.some((d) => d?.state !== "COMPLETED")) continue;
    if (subtask.not_before !== null && subtask.not_before > now) {
      step.do({ type: "wakeAt", at: subtask.not_before });
      continue;
    }
    step.do({ type: "start", planId: subtask.plan_id, subtaskId: subtask.id, node: subtask.node });
  }
  if (step.state.subtasks.every((s) => ENDED.has(s.state)))
    step.do({ type: "writeReport", planId: step.state.plan.id });
  else step.do(progress(step, false));
}

function dispatched(
  step: Step,
  { subtaskId, attemptId, slot, now }: Extract<PlanEvent, { type: "dispatched" }>,
) {
  const { plan, subtasks } = step.state;
  const subtask = step.subtask(subtaskId);
  if (plan.status !== "running" || subtask?.state !== "PENDING") return;
  const worker = subtask.node ? `Worker@${subtask.node}` : slot !== undefined ? workerName(slot) : undefined;
  if (!worker) return;
  const attempt = dispatchedAttempt(subtask, attemptId, worker, now);
  const task = taskOf(attemptId, subtask, subtasks);
  step.write(markStepDispatched(attempt));
  if (subtask.node) step.do({ type: "sendTask", frame: taskFrame(plan, subtask.node, task) });
  else if (slot !== undefined) {
    step.write(markStepStarted(attempt, subtask, now));
    step.do({ type: "runLocal", attemptId, slot, task, owner: { ...planOwner(plan), planId: plan.id } });
  }
}

/** The task as the router relays it to `node`, tied to the request that started the plan. */
function taskFrame(plan: PlanRow, node: string, task: WorkerTask): WorkerTaskFrame {
  return {
    type: "worker_task",
    task_id: task.taskId,
    plan_id: plan.id,
    ...(plan.request_id ? { request_id: plan.request_id } : {}),
    user_id: plan.user_id,
    platform: plan.platform,
    chat_id: plan.chat_id,
    node,
    objective: task.objective,
    context: task.context,
    skills: task.skills,
    ttl_s: task.ttlS,
  };
}

/** What the worker is told: the objective, the results it depends on, and its last error. */
function taskOf(taskId: string, subtask: SubtaskRow, subtasks: readonly SubtaskRow[]): WorkerTask {
  const inputs = subtask.depends_on.flatMap((id) => {
    const dep = subtasks.find((s) => s.id === id);
    return dep?.result ? [{ id, result: dep.result }] : [];
  });
  return {
    taskId,
    objective: subtask.objective,
    context: workerContext(subtask.context, inputs, subtask.attempts > 0 ? subtask.last_error : null),
    skills: subtask.skills,
    ttlS: subtask.ttl_s,
  };
}

/** An attempt ended: record it, and retry its subtask or end it. Stale and repeated ends are ignored. */
function attemptEnded(step: Step, event: Omit<Extract<PlanEvent, { type: "attemptEnded" }>, "type">): void {
  const attempt = step.attemptUnderWay(event.attemptId);
  if (!attempt) return;
  const { outcome, result, now } = event;
  const state = outcome === "completed" ? "COMPLETED" : outcome === "timeout" ? "TIMEOUT" : "FAILED";
  const reason =
    event.error ??
    (result?.errors.join("; ") || (state === "COMPLETED" ? null : (result?.result ?? "failed")));
  if (state === "COMPLETED") step.write(markStepDone(attempt, result ?? null, reason, now));
  else
    retryOrEnd(
      step,
      attempt,
      { state, error: reason, result: result ?? null, at: now },
      { state, error: reason ?? "failed", nodeOffline: event.nodeOffline ?? false, now },
    );
  step.do(
    {
      type: "log",
      message: "worker attempt ended",
      fields: { planId: attempt.plan_id, subtask: attempt.subtask_id, state },
    },
    progress(step, false),
    { type: "pump" },
  );
}

/** The attempt is recorded as ended (unless it is LOST already); its subtask is retried or ends. */
function retryOrEnd(
  step: Step,
  attempt: AttemptRow,
  ended: AttemptEnd | null,
  failure: { state: "FAILED" | "TIMEOUT"; error: string; nodeOffline: boolean; now: number },
): void {
  const subtask = step.subtask(attempt.subtask_id);
  const open = subtask && !ENDED.has(subtask.state);
  const next = open
    ? afterFailure({ subtask, attempt, ...failure, nodeRetryMs: step.state.nodeRetryMs })
    : null;
  if (ended || next) step.write(markStepFailed(attempt, ended, next));
}

function stop(step: Step, reason: string, now: number): void {
  const { plan, attempts, subtasks } = step.state;
  if (plan.status !== "running") return;
  const underWay = attempts.filter((a) => UNDER_WAY.has(a.state));
  const open = subtasks.filter((s) => !ENDED.has(s.state));
  step.write(markPlanStopped(step.state, underWay, open, reason, now));
  for (const attempt of underWay)
    step.do(
      attempt.node
        ? cancelRemote(step.state, attempt.id, attempt.node, reason)
        : { type: "abort", attemptId: attempt.id, reason },
    );
  step.do(progress(step, true), {
    type: "log",
    message: "plan stopped",
    fields: { planId: plan.id, cancelled: underWay.length },
  });
}

const progress = (step: Step, immediately: boolean): PlanAction => ({
  type: "showProgress",
  planId: step.state.plan.id,
  immediately,
});

const cancelRemote = (state: PlanState, attemptId: string, node: string, reason: string): PlanAction => ({
  type: "cancelRemote",
  attemptId,
  userId: state.plan.user_id,
  node,
  reason,
});
