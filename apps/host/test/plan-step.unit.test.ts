import { describe, expect, it } from "vitest";
import { planStep } from "../src/workers/plan-step.ts";
import { STEP_CASES } from "./plan-step-cases.ts";

// The plan runner's decisions, one case per row (plan-step-cases.ts): the actions in order, and
// the rows after them. A step is pure: the state it was given is left as it was.

describe("planStep", () => {
  it.each(STEP_CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const before = structuredClone(c.state);
    const { state, actions } = planStep(c.state, c.event);
    expect(actions).toMatchObject(c.actions);
    if (c.after?.plan) expect(state.plan).toMatchObject(c.after.plan);
    for (const [id, row] of Object.entries(c.after?.subtasks ?? {}))
      expect(state.subtasks.find((s) => s.id === id)).toMatchObject(row);
    for (const [id, row] of Object.entries(c.after?.attempts ?? {}))
      expect(state.attempts.find((a) => a.id === id)).toMatchObject(row);
    expect(c.state).toEqual(before);
  });

  it("a step with no actions leaves the state as it was", () => {
    for (const c of STEP_CASES.filter((c) => c.actions.length === 0))
      expect(planStep(c.state, c.event).state).toEqual(c.state);
  });
});
