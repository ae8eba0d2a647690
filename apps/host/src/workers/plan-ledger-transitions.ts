import type { WorkerResult } from "@phonework/protocol";
import type {
  AttemptRow,
  PlanRow,
  PlanStatus,
  SubtaskChanges,
  SubtaskRow,
  Transition,
} from "./plan-ledger.ts";

// The changes a plan's rows go through, each named after what happened (PlanLedger.apply writes
// one; applyTransition gives the rows after it). Nothing here reads the clock: `at` is the time
// of the event.

/** A plan's rows, as one step of the runner sees them. */
export interface PlanRows {
  plan: PlanRow;
  subtasks: SubtaskRow[];
  attempts: AttemptRow[];
}

const change = (name: string, planId: string, parts: Partial<Transition>): Transition => ({
  name,
  planId,
  attempts: [],
  subtasks: [],
  ...parts,
});

/** A worker was found for the subtask (a slot here, or its node): the attempt is DISPATCHED. */
export const markStepDispatched = (attempt: AttemptRow): Transition =>
  change("stepDispatched", attempt.plan_id, {
    newAttempt: attempt,
    subtasks: [
      {
        id: attempt.subtask_id,
        changes: { state: "DISPATCHED", attempts: attempt.n, worker: attempt.worker, not_before: null },
      },
    ],
  });

/** The worker started: the attempt and its subtask are RUNNING (a retry keeps its first start). */
export const markStepStarted = (attempt: AttemptRow, subtask: SubtaskRow, at: number): Transition =>
  change("stepStarted", attempt.plan_id, {
    attempts: [{ id: attempt.id, changes: { state: "RUNNING", started_at: at } }],
    subtasks: [
      {
        id: subtask.id,
        changes: { state: "RUNNING", started_at: subtask.started_at ?? at, offline_since: null },
      },
    ],
  });

/** The attempt succeeded: it and its subtask are COMPLETED with the result. */
export const markStepDone = (
  attempt: AttemptRow,
  result: WorkerResult | null,
  error: string | null,
  at: number,
): Transition =>
  change("stepDone", attempt.plan_id, {
    attempts: [{ id: attempt.id, changes: { state: "COMPLETED", finished_at: at, error, result } }],
    subtasks: [
      {
        id: attempt.subtask_id,
        changes: { state: "COMPLETED", result, last_error: null, finished_at: at },
      },
    ],
  });

/** How an attempt that did not complete ended. */
export interface AttemptEnd {
  state: "FAILED" | "TIMEOUT";
  error: string | null;
  result: WorkerResult | null;
  at: number;
}

/**
 * The attempt failed or timed out (`ended`: its own row, absent when it is already LOST); the
 * subtask goes where the retry policy says (`next`: PENDING again, or ended), or stays as it is.
 */
export const markStepFailed = (
  attempt: AttemptRow,
  ended: {
    state: "FAILED" | "TIMEOUT";
    error: string | null;
    result: WorkerResult | null;
    at: number;
  } | null,
  next: SubtaskChanges | null,
): Transition =>
  change(next?.state === "PENDING" ? "stepRetried" : "stepFailed", attempt.plan_id, {
    attempts: ended
      ? [
          {
            id: attempt.id,
            changes: { state: ended.state, finished_at: ended.at, error: ended.error, result: ended.result },
          },
        ]
      : [],
    subtasks: next ? [{ id: attempt.subtask_id, changes: next }] : [],
  });

/** A subtask it depends on ended without a result: it never runs. */
export const markStepSkipped = (subtask: SubtaskRow, error: string, at: number): Transition =>
  change("stepSkipped", subtask.plan_id, {
    subtasks: [{ id: subtask.id, changes: { state: "FAILED", last_error: error, finished_at: at } }],
  });

/** /stop: the attempts under way and the subtasks not ended are CANCELLED, the plan stopped. */
export const markPlanStopped = (
  rows: PlanRows,
  underWay: readonly AttemptRow[],
  open: readonly SubtaskRow[],
  reason: string,
  at: number,
): Transition =>
  change("planStopped", rows.plan.id, {
    attempts: underWay.map((a) => ({
      id: a.id,
      changes: { state: "CANCELLED", finished_at: at, error: reason },
    })),
    subtasks: open.map((s) => ({
      id: s.id,
      changes: { state: "CANCELLED", finished_at: at, last_error: reason },
    })),
    plan: { status: "stopped", finished_at: at },
  });

/** Every subtask ended and the report is written: the plan is done (or failed, with no result). */
export const markPlanFinished = (
  plan: PlanRow,
  status: Extract<PlanStatus, "done" | "failed">,
  report: string,
  at: number,
): Transition => change("planFinished", plan.id, { plan: { status, finished_at: at, report } });

const patched = <T extends object>(row: T, changes: object | undefined): T =>
  changes
    ? { ...row, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) }
    : row;

/** The rows after `transition`, as PlanLedger.apply leaves them in the database. */
export function applyTransition(rows: PlanRows, transition: Transition): PlanRows {
  const attempts = transition.newAttempt ? [...rows.attempts, transition.newAttempt] : rows.attempts;
  return {
    plan: patched(rows.plan, transition.plan),
    subtasks: rows.subtasks.map((s) => patched(s, transition.subtasks.find((c) => c.id === s.id)?.changes)),
    attempts: attempts.map((a) => patched(a, transition.attempts.find((c) => c.id === a.id)?.changes)),
  };
}
