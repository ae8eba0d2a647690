import { describe, expect, it } from "vitest";
import { openHostDatabase } from "../src/state-db.ts";
import { PlanLedger, type PlanRow, type SubtaskRow } from "../src/workers/plan-ledger.ts";

// The plan ledger in a real state.db (in memory): rows round-trip with their JSON columns, and
// old plans are forgotten with everything under them while running ones stay.

const plan = (id: string, changes: Partial<PlanRow> = {}): PlanRow => ({
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
const subtask = (planId: string): SubtaskRow => ({
  plan_id: planId,
  id: "s",
  seq: 0,
  objective: "o",
  context: "",
  skills: ["run_shell", "file_ops"],
  ttl_s: 60,
  node: null,
  depends_on: ["x"],
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
});

describe("PlanLedger", () => {
  it("round-trips a subtask's JSON columns and a validated result", () => {
    const ledger = new PlanLedger(openHostDatabase(":memory:"));
    ledger.createPlan(plan("p1"), [subtask("p1")]);
    const result = {
      task_id: "w",
      status: "success" as const,
      result: "ok",
      artifacts: ["/a"],
      duration: 2,
      errors: [],
    };
    ledger.updateSubtask("p1", "s", { state: "COMPLETED", result });
    expect(ledger.subtask("p1", "s")).toMatchObject({
      skills: ["run_shell", "file_ops"],
      depends_on: ["x"],
      result,
    });
  });

  it("prunes ended plans older than the cut with their subtasks and attempts; running plans stay", () => {
    const db = openHostDatabase(":memory:");
    const ledger = new PlanLedger(db);
    ledger.createPlan(plan("old", { status: "done", finished_at: 1000 }), [subtask("old")]);
    ledger.createPlan(plan("new", { status: "done", finished_at: 9000 }), [subtask("new")]);
    ledger.createPlan(plan("run"), [subtask("run")]);
    ledger.addAttempt({
      id: "w-1",
      plan_id: "old",
      subtask_id: "s",
      n: 1,
      node: null,
      worker: "Worker-1",
      state: "COMPLETED",
      dispatched_at: 0,
      started_at: 0,
      finished_at: 1000,
      error: null,
      result: null,
    });
    expect(ledger.prunePlans(5000)).toBe(1);
    expect(
      ledger
        .plansOf("u1")
        .map((p) => p.id)
        .sort(),
    ).toEqual(["new", "run"]);
    expect(db.prepare("SELECT count(*) AS n FROM plan_subtasks WHERE plan_id = 'old'").get()).toEqual({
      n: 0,
    });
    expect(ledger.attempt("w-1")).toBeUndefined();
  });
});
