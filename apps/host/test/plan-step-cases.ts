import type { WorkerResult } from "@phonework/protocol";
import { expect } from "vitest";
import type { AttemptRow, PlanRow, SubtaskRow } from "../src/workers/plan-ledger.ts";
import { LOST_ERROR, type PlanEvent, type PlanState } from "../src/workers/plan-step.ts";
import { attemptRow, planRow, subtaskRow } from "./plan-rows.ts";

// The plan step's cases, as a table: a plan's rows and an event in, the actions (in order, each
// matched on the fields given) and the rows that should come out. plan-step.unit.test.ts runs
// them; plan-ledger.test.ts checks that the ledger holds the same rows after the transitions.

export interface StepCase {
  name: string;
  state: PlanState;
  event: PlanEvent;
  actions: object[];
  after?: {
    plan?: Partial<PlanRow>;
    subtasks?: Record<string, Partial<SubtaskRow>>;
    attempts?: Record<string, Partial<AttemptRow>>;
  };
}

const NOW = 100_000;
const state = (
  subtasks: SubtaskRow[],
  attempts: AttemptRow[] = [],
  plan: Partial<PlanRow> = {},
): PlanState => ({
  plan: planRow("p1", plan),
  subtasks,
  attempts,
  nodeRetryMs: 3000,
});
const sub = (id: string, changes: Partial<SubtaskRow> = {}) => subtaskRow({ id, ...changes });
const attempt = (id: string, subtask: string, changes: Partial<AttemptRow> = {}) =>
  attemptRow({ id, subtask_id: subtask, ...changes });
const result = (text: string, changes: Partial<WorkerResult> = {}): WorkerResult => ({
  task_id: "w-1",
  status: "success",
  result: text,
  artifacts: [],
  duration: 1,
  errors: [],
  ...changes,
});
const ledger = (name: string) => ({ type: "ledger", transition: { name } });
const progress = (immediately = false) => ({ type: "showProgress", planId: "p1", immediately });
const afterAnEnd = [{ type: "log", message: "worker attempt ended" }, progress(), { type: "pump" }];

/** A subtask under way here (attempt w-1, its first) and one on node pc (attempt w-2). */
const running = sub("a", { state: "RUNNING", attempts: 1, worker: "Worker-1", started_at: 10 });
const runningHere = attempt("w-1", "a", { state: "RUNNING", started_at: 10 });
const onNode = sub("b", { state: "DISPATCHED", node: "pc", attempts: 1, worker: "Worker@pc" });
const onNodeAttempt = attempt("w-2", "b", { node: "pc", worker: "Worker@pc" });

export const STEP_CASES: StepCase[] = [
  // ── advance ──
  {
    name: "advance: a subtask with nothing to wait for asks for a worker here",
    state: state([sub("a")]),
    event: { type: "advance", now: NOW },
    actions: [{ type: "start", planId: "p1", subtaskId: "a", node: null }, progress()],
  },
  {
    name: "advance: a subtask pinned to a node asks for that node",
    state: state([sub("a", { node: "pc" })]),
    event: { type: "advance", now: NOW },
    actions: [{ type: "start", subtaskId: "a", node: "pc" }, progress()],
  },
  {
    name: "advance: a subtask waits until what it depends on has completed",
    state: state([running, sub("b", { depends_on: ["a"] })], [runningHere]),
    event: { type: "advance", now: NOW },
    actions: [progress()],
  },
  {
    name: "advance: a dependency that failed skips its dependents, and theirs",
    state: state([
      sub("a", { state: "FAILED", finished_at: 5 }),
      sub("b", { depends_on: ["a"] }),
      sub("c", { depends_on: ["b"] }),
    ]),
    event: { type: "advance", now: NOW },
    actions: [ledger("stepSkipped"), ledger("stepSkipped"), { type: "writeReport", planId: "p1" }],
    after: {
      subtasks: {
        b: { state: "FAILED", last_error: "skipped: it needed [a], which failed", finished_at: NOW },
        c: { state: "FAILED", last_error: "skipped: it needed [b], which failed" },
      },
    },
  },
  {
    name: "advance: a cancelled dependency skips its dependent; the others start",
    state: state([
      sub("a", { state: "CANCELLED" }),
      sub("b", { depends_on: ["a"] }),
      sub("c", { node: "pc" }),
    ]),
    event: { type: "advance", now: NOW },
    actions: [ledger("stepSkipped"), { type: "start", subtaskId: "c", node: "pc" }, progress()],
    after: { subtasks: { b: { last_error: "skipped: it needed [a], which was cancelled" } } },
  },
  {
    name: "advance: a retry that waits for its node sets the timer",
    state: state([sub("a", { node: "pc", not_before: NOW + 3000, attempts: 1 })]),
    event: { type: "advance", now: NOW },
    actions: [{ type: "wakeAt", at: NOW + 3000 }, progress()],
  },
  {
    name: "advance: every subtask has ended → the report is written",
    state: state([sub("a", { state: "COMPLETED" }), sub("b", { state: "TIMEOUT" })]),
    event: { type: "advance", now: NOW },
    actions: [{ type: "writeReport", planId: "p1" }],
  },
  {
    name: "advance: a plan no longer running is left alone",
    state: state([sub("a")], [], { status: "stopped" }),
    event: { type: "advance", now: NOW },
    actions: [],
  },
  // ── start ──
  {
    name: "dispatched here: RUNNING on its slot, the worker told the result it needs",
    state: state([
      sub("a", { state: "COMPLETED", result: result("big.iso") }),
      sub("b", { depends_on: ["a"], objective: "summarize" }),
    ]),
    event: { type: "dispatched", subtaskId: "b", attemptId: "w-9", slot: 2, now: NOW },
    actions: [
      ledger("stepDispatched"),
      ledger("stepStarted"),
      {
        type: "runLocal",
        attemptId: "w-9",
        slot: 2,
        task: {
          taskId: "w-9",
          objective: "summarize",
          ttlS: 60,
          context: expect.stringContaining("big.iso"),
        },
        owner: { userId: "u1", chatId: "c1", platform: "t", planId: "p1" },
      },
    ],
    after: {
      subtasks: { b: { state: "RUNNING", attempts: 1, worker: "Worker-2", started_at: NOW } },
      attempts: {
        "w-9": { state: "RUNNING", n: 1, worker: "Worker-2", dispatched_at: NOW, started_at: NOW },
      },
    },
  },
  {
    name: "dispatched to a node: the task goes to the router with the plan's request",
    state: state([sub("a", { node: "pc" })], [], { request_id: "r1" }),
    event: { type: "dispatched", subtaskId: "a", attemptId: "w-9", now: NOW },
    actions: [
      ledger("stepDispatched"),
      {
        type: "sendTask",
        frame: {
          type: "worker_task",
          task_id: "w-9",
          plan_id: "p1",
          request_id: "r1",
          node: "pc",
          ttl_s: 60,
        },
      },
    ],
    after: {
      subtasks: { a: { state: "DISPATCHED", worker: "Worker@pc" } },
      attempts: { "w-9": { node: "pc" } },
    },
  },
  {
    name: "remoteStarted: the node's worker started; the subtask is RUNNING",
    state: state([onNode], [onNodeAttempt]),
    event: { type: "remoteStarted", attemptId: "w-2", now: NOW },
    actions: [ledger("stepStarted"), progress()],
    after: {
      subtasks: { b: { state: "RUNNING", started_at: NOW } },
      attempts: { "w-2": { state: "RUNNING" } },
    },
  },
  {
    name: "remoteStarted again for a RUNNING attempt is ignored",
    state: state([onNode], [{ ...onNodeAttempt, state: "RUNNING" }]),
    event: { type: "remoteStarted", attemptId: "w-2", now: NOW },
    actions: [],
  },
  // ── an attempt ends ──
  {
    name: "step done: the attempt and its subtask COMPLETED with the result",
    state: state([running], [runningHere]),
    event: {
      type: "attemptEnded",
      attemptId: "w-1",
      outcome: "completed",
      result: result("4 files"),
      now: NOW,
    },
    actions: [ledger("stepDone"), ...afterAnEnd],
    after: {
      subtasks: { a: { state: "COMPLETED", result: result("4 files"), finished_at: NOW } },
      attempts: { "w-1": { state: "COMPLETED", error: null, finished_at: NOW } },
    },
  },
  {
    name: "step failed with a retry left: PENDING again, with the error for the next attempt",
    state: state([running], [runningHere]),
    event: { type: "attemptEnded", attemptId: "w-1", outcome: "failed", error: "boom", now: NOW },
    actions: [ledger("stepRetried"), ...afterAnEnd],
    after: {
      subtasks: { a: { state: "PENDING", last_error: "boom", not_before: null } },
      attempts: { "w-1": { state: "FAILED", error: "boom" } },
    },
  },
  {
    name: "step failed with its retries used up: FAILED, with the worker's own errors",
    state: state([{ ...running, attempts: 2 }], [{ ...runningHere, n: 2 }]),
    event: {
      type: "attemptEnded",
      attemptId: "w-1",
      outcome: "failed",
      result: result("no", { status: "failed", errors: ["disk full", "gave up"] }),
      now: NOW,
    },
    actions: [ledger("stepFailed"), ...afterAnEnd],
    after: { subtasks: { a: { state: "FAILED", last_error: "disk full; gave up", finished_at: NOW } } },
  },
  {
    name: "timeout with its retries used up: TIMEOUT",
    state: state([{ ...running, attempts: 2 }], [{ ...runningHere, n: 2 }]),
    event: { type: "attemptEnded", attemptId: "w-1", outcome: "timeout", error: "past its TTL", now: NOW },
    actions: [ledger("stepFailed"), ...afterAnEnd],
    after: {
      subtasks: { a: { state: "TIMEOUT", last_error: "past its TTL" } },
      attempts: { "w-1": { state: "TIMEOUT" } },
    },
  },
  {
    name: "a silent node: the attempt is cancelled there and counts as TIMEOUT (retried)",
    state: state([onNode], [onNodeAttempt]),
    event: { type: "remoteSilent", attemptId: "w-2", now: NOW },
    actions: [
      { type: "cancelRemote", attemptId: "w-2", userId: "u1", node: "pc", reason: "timed out" },
      ledger("stepRetried"),
      ...afterAnEnd,
    ],
    after: {
      subtasks: { b: { state: "PENDING", last_error: "no result from node pc within 60s" } },
      attempts: { "w-2": { state: "TIMEOUT" } },
    },
  },
  {
    name: "remote worker offline: the subtask waits for its node and asks again after nodeRetryMs",
    state: state([onNode], [onNodeAttempt]),
    event: {
      type: "attemptEnded",
      attemptId: "w-2",
      outcome: "failed",
      error: "NODE_OFFLINE: pc is offline",
      nodeOffline: true,
      now: NOW,
    },
    actions: [ledger("stepRetried"), ...afterAnEnd],
    after: { subtasks: { b: { state: "PENDING", not_before: NOW + 3000, offline_since: NOW, attempts: 1 } } },
  },
  {
    name: "remote worker offline past the subtask's TTL: FAILED",
    state: state([{ ...onNode, offline_since: NOW - 60_000 }], [onNodeAttempt]),
    event: {
      type: "attemptEnded",
      attemptId: "w-2",
      outcome: "failed",
      error: "NODE_OFFLINE: gone",
      nodeOffline: true,
      now: NOW,
    },
    actions: [ledger("stepFailed"), ...afterAnEnd],
    after: {
      subtasks: {
        b: { state: "FAILED", last_error: "node pc did not come back within 60s (NODE_OFFLINE: gone)" },
      },
    },
  },
  {
    name: "an end for an unknown attempt is ignored",
    state: state([running], [runningHere]),
    event: { type: "attemptEnded", attemptId: "w-404", outcome: "completed", result: result("?"), now: NOW },
    actions: [],
  },
  {
    name: "an end for an attempt already ended (a resent result) is ignored",
    state: state([{ ...running, state: "COMPLETED" }], [{ ...runningHere, state: "COMPLETED" }]),
    event: { type: "attemptEnded", attemptId: "w-1", outcome: "failed", error: "late", now: NOW },
    actions: [],
  },
  {
    name: "a worker found for a subtask no longer pending is ignored",
    state: state([sub("a", { state: "CANCELLED" })]),
    event: { type: "dispatched", subtaskId: "a", attemptId: "w-9", slot: 1, now: NOW },
    actions: [],
  },
  // ── /stop, restart, report ──
  {
    name: "cancel (/stop): attempts under way CANCELLED, the local one aborted, the remote one cancelled at its node",
    state: state([running, onNode, sub("c", { state: "COMPLETED" })], [runningHere, onNodeAttempt]),
    event: { type: "stop", reason: "stopped by the user", now: NOW },
    actions: [
      ledger("planStopped"),
      { type: "abort", attemptId: "w-1", reason: "stopped by the user" },
      { type: "cancelRemote", attemptId: "w-2", node: "pc", reason: "stopped by the user" },
      progress(true),
      { type: "log", message: "plan stopped", fields: { planId: "p1", cancelled: 2 } },
    ],
    after: {
      plan: { status: "stopped", finished_at: NOW },
      subtasks: { a: { state: "CANCELLED" }, b: { state: "CANCELLED" }, c: { state: "COMPLETED" } },
      attempts: {
        "w-1": { state: "CANCELLED", error: "stopped by the user" },
        "w-2": { state: "CANCELLED" },
      },
    },
  },
  {
    name: "after a restart: a lost attempt's subtask is retried and its node told to stop",
    state: state([onNode], [{ ...onNodeAttempt, state: "LOST" }]),
    event: { type: "attemptLost", attempt: onNodeAttempt, now: NOW },
    actions: [
      ledger("stepRetried"),
      { type: "cancelRemote", attemptId: "w-2", reason: "the master host restarted" },
    ],
    after: {
      subtasks: { b: { state: "PENDING", last_error: LOST_ERROR } },
      attempts: { "w-2": { state: "LOST" } },
    },
  },
  {
    name: "all done → report: the plan is done and the report delivered with the write",
    state: state([sub("a", { state: "COMPLETED" }), sub("b", { state: "FAILED" })]),
    event: { type: "reportWritten", report: "Task partly done.", now: NOW },
    actions: [
      ledger("planFinished"),
      { type: "deliverReport", report: "Task partly done.", plan: { id: "p1", status: "done" } },
      progress(true),
      { type: "log", message: "plan finished", fields: { planId: "p1", status: "done" } },
    ],
    after: { plan: { status: "done", report: "Task partly done.", finished_at: NOW } },
  },
  {
    name: "a report where every part failed: the plan failed",
    state: state([sub("a", { state: "FAILED" })]),
    event: { type: "reportWritten", report: "Task failed.", now: NOW },
    actions: [ledger("planFinished"), { type: "deliverReport" }, progress(true), { type: "log" }],
    after: { plan: { status: "failed" } },
  },
  {
    name: "a report for a plan stopped while it was written is dropped",
    state: state([sub("a", { state: "CANCELLED" })], [], { status: "stopped" }),
    event: { type: "reportWritten", report: "late", now: NOW },
    actions: [],
  },
];
