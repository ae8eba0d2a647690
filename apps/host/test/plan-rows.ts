import type { AttemptRow, PlanRow, SubtaskRow } from "../src/workers/plan-ledger.ts";

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
  ...changes,
});

export const subtaskRow = (changes: Partial<SubtaskRow> = {}): SubtaskRow => ({
  plan_id: "p1",
  id: "s",
  seq: 0,
  objective: "o",
  context: "",
  skills: ["run_shell"],
  ttl_s: 60,
  node: null,
  depends_on: [],
  max_retries: 1,
  state: "PENDING",
  attempts: 0,
  worker: null,
  last_error: null,
  result: null,
  started_at: null,
  finished_at: null,
  not_before: null,
  offline_since: null,
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
