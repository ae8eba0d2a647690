import { describe, expect, it } from "vitest";
import {
  checkPlan,
  DelegateArgs,
  estimateMinutes,
  findCycle,
  type PlanLimits,
} from "../src/workers/plan-spec.ts";

// The checks between the model's plan and the runner: everything the model can get wrong is
// refused with a sentence it can act on.

const limits: Omit<PlanLimits, "peers"> & { peers: PlanLimits["peers"] } = {
  maxSubtasks: 10,
  defaultTtlS: 300,
  self: { nodeId: "home-pc", displayName: "Home PC" },
  localSkills: ["run_shell", "file_ops"],
  peers: [
    { node_id: "work-srv", display_name: "Work Server", online: true, workers: true },
    { node_id: "old-box", display_name: "old-box", online: true, workers: false },
  ],
};
const plan = (subtasks: object[]) => DelegateArgs.parse({ goal: "g", subtasks });
const t = (id: string, extra: object = {}) => ({
  id,
  objective: `do ${id}`,
  skills: ["run_shell"],
  ...extra,
});

describe("checkPlan", () => {
  it("resolves nodes by id or display name (its own name means here) and fills the defaults", () => {
    const check = checkPlan(
      plan([
        t("a", { node: "Work Server" }),
        t("b", { node: "home pc", depends_on: ["a", "a"] }),
        t("c", { ttl_s: 20 }),
      ]),
      limits,
    );
    expect(check).toEqual({
      ok: true,
      subtasks: [
        {
          id: "a",
          objective: "do a",
          context: "",
          skills: ["run_shell"],
          ttlS: 300,
          node: "work-srv",
          dependsOn: [],
        },
        {
          id: "b",
          objective: "do b",
          context: "",
          skills: ["run_shell"],
          ttlS: 300,
          node: undefined,
          dependsOn: ["a"],
        },
        {
          id: "c",
          objective: "do c",
          context: "",
          skills: ["run_shell"],
          ttlS: 20,
          node: undefined,
          dependsOn: [],
        },
      ],
    });
  });

  it.each([
    [[t("a"), t("a")], 'two subtasks have the id "a"'],
    [[t("a", { depends_on: ["zzz"] })], 'subtask "a" depends on "zzz", which is not in the plan'],
    [[t("a", { depends_on: ["a"] })], "the dependencies form a cycle: a → a"],
    [
      [t("a", { depends_on: ["c"] }), t("b", { depends_on: ["a"] }), t("c", { depends_on: ["b"] })],
      "the dependencies form a cycle: a → c → b → a",
    ],
    [[t("a", { node: "old-box" })], 'subtask "a": node "old-box" cannot run workers (it needs upgrading)'],
    [
      [t("a", { node: "router" })],
      'subtask "a": there is no node "router" among the user\'s nodes (home-pc, work-srv, old-box)',
    ],
    [[t("a", { skills: ["web"] })], 'subtask "a": unknown skill web; workers can use run_shell, file_ops'],
    [
      [t("a", { skills: ["delegate", "run_background"] })],
      'subtask "a": unknown skills delegate, run_background; workers can use run_shell, file_ops',
    ],
    [Array.from({ length: 11 }, (_, i) => t(`t${i}`)), "11 subtasks; at most 10 — merge some"],
  ])("refuses %j", (subtasks, reason) => {
    expect(checkPlan(plan(subtasks), limits)).toEqual({ ok: false, reason: `plan refused: ${reason}` });
  });

  it("lets a remote subtask name any worker skill (the node that runs it checks its own)", () => {
    expect(checkPlan(plan([t("a", { node: "work-srv", skills: ["web"] })]), limits).ok).toBe(true);
  });

  it("the schema refuses ids that could be paths or markup, and absurd TTLs", () => {
    for (const bad of [
      t("../x"),
      t("a b"),
      t("x".repeat(33)),
      t("a", { ttl_s: 0 }),
      t("a", { ttl_s: 99999 }),
      t("a", { skills: [] }),
    ])
      expect(DelegateArgs.safeParse({ goal: "g", subtasks: [bad] }).success).toBe(false);
  });

  it("finds no cycle in a diamond, and estimates the longest chain", () => {
    const diamond = [
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: ["a"] },
      { id: "c", dependsOn: ["a"] },
      { id: "d", dependsOn: ["b", "c"] },
    ];
    expect(findCycle(diamond)).toBeUndefined();
    const planned = diamond.map((s) => ({
      ...s,
      objective: "",
      context: "",
      skills: [],
      ttlS: 300,
      node: undefined,
    }));
    expect(estimateMinutes(planned)).toBe(3);
    expect(estimateMinutes(planned.map((s) => ({ ...s, ttlS: 10 })))).toBe(1);
  });
});
