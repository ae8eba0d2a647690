import {
  type AttemptRow,
  type PlanRow,
  pendingSubtask,
  type SubtaskRow,
} from "../src/workers/plan-ledger.ts";

// Ledger rows for tests: a running plan, a pending subtask and a dispatched attempt, with the
// fields a test cares about overridden.

export const planRow = (id: string, changes: Partial<PlanRow> = {}): PlanRow => ({
  id,
  user_id: "u1",
  platform: "t",
  chat_id: "c1",
  goal: "g",
  status: "running",
  created_at: 0,
  finished_at: null,
  report: null,
  request_id: null,
  ...changes,
});

export const subtaskRow = (changes: Partial<SubtaskRow> = {}): SubtaskRow => ({
  ...pendingSubtask(
    "p1",
    0,
    { id: "s", objective: "o", context: "", skills: ["run_shell"], ttlS: 60, node: undefined, dependsOn: [] },
    1,
  ),
  ...changes,
});

export const attemptRow = (changes: Partial<AttemptRow> = {}): AttemptRow => ({
  id: "w-1",
  plan_id: "p1",
  subtask_id: "s",
  n: 1,
  node: null,
  worker: "Worker-1",
  state: "DISPATCHED",
  dispatched_at: 0,
  started_at: null,
  finished_at: null,
  error: null,
  result: null,
  ...changes,
});
