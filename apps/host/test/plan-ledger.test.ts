import { describe, expect, it } from "vitest";
import { openStateDatabase } from "../src/state-database.ts";
import { PlanLedger } from "../src/workers/plan-ledger.ts";
import { attemptRow, planRow, subtaskRow } from "./plan-rows.ts";

// The plan ledger in a real state.db (in memory): rows round-trip with their JSON columns, and
// old plans are forgotten with everything under them while running ones stay.

const plan = planRow;
const subtask = (planId: string) =>
  subtaskRow({ plan_id: planId, skills: ["run_shell", "file_ops"], depends_on: ["x"] });

describe("PlanLedger", () => {
  it("round-trips a subtask's JSON columns and a validated result", () => {
    const ledger = new PlanLedger(openStateDatabase(":memory:"));
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
    const db = openStateDatabase(":memory:");
    const ledger = new PlanLedger(db);
    ledger.createPlan(plan("old", { status: "done", finished_at: 1000 }), [subtask("old")]);
    ledger.createPlan(plan("new", { status: "done", finished_at: 9000 }), [subtask("new")]);
    ledger.createPlan(plan("run"), [subtask("run")]);
    ledger.addAttempt(attemptRow({ plan_id: "old", state: "COMPLETED", started_at: 0, finished_at: 1000 }));
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
