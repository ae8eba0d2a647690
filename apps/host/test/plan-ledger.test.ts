import { describe, expect, it } from "vitest";
import { openStateDatabase } from "../src/state-database.ts";
import { PlanLedger } from "../src/workers/plan-ledger.ts";
import { planStep } from "../src/workers/plan-step.ts";
import { attemptRow, planRow, subtaskRow } from "./plan-rows.ts";
import { STEP_CASES } from "./plan-step-cases.ts";

// The plan ledger in a real state.db (in memory): rows round-trip with their JSON columns, and
// old plans are forgotten with everything under them while running ones stay; a step's transitions
// leave the ledger holding the rows the step answered.

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

  it("holds, after a step's transitions, the rows the step answered (every case of the step's table)", () => {
    for (const c of STEP_CASES) {
      const ledger = new PlanLedger(openStateDatabase(":memory:"));
      ledger.createPlan(c.state.plan, c.state.subtasks);
      for (const attempt of c.state.attempts) ledger.addAttempt(attempt);
      const { state, actions } = planStep(c.state, c.event);
      for (const action of actions) if (action.type === "ledger") ledger.apply(action.transition);
      const byId = <T extends { id: string }>(rows: T[]) =>
        [...rows].sort((a, b) => a.id.localeCompare(b.id));
      expect(ledger.plan("p1"), c.name).toEqual(state.plan);
      expect(ledger.subtasks("p1"), c.name).toEqual(state.subtasks);
      expect(byId(ledger.attempts("p1")), c.name).toEqual(byId(state.attempts));
    }
  });
});
