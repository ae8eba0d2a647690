import { describe, expect, it } from "vitest";
import type { AttemptRow, SubtaskRow } from "../src/workers/plan-ledger.ts";
import { afterFailure } from "../src/workers/retry-policy.ts";
import { attemptRow, subtaskRow } from "./plan-rows.ts";

// After a failed attempt: retried while retries are left, waiting for an offline node at most
// the subtask's TTL, and asking again while the node is away does not use up a retry.

const subtask = (changes: Partial<SubtaskRow> = {}) =>
  subtaskRow({ node: "work-srv", state: "DISPATCHED", attempts: 1, ...changes });
const attempt = (changes: Partial<AttemptRow> = {}) =>
  attemptRow({ node: "work-srv", worker: "Worker@work-srv", started_at: 1000, ...changes });
const base = { state: "FAILED" as const, error: "boom", nodeOffline: false, now: 10_000, nodeRetryMs: 3000 };

describe("afterFailure", () => {
  it("retries once with the error, then ends in the attempt's state", () => {
    expect(afterFailure({ ...base, subtask: subtask(), attempt: attempt() })).toEqual({
      state: "PENDING",
      attempts: 1,
      last_error: "boom",
      offline_since: null,
      not_before: null,
    });
    expect(
      afterFailure({ ...base, state: "TIMEOUT", subtask: subtask({ attempts: 2 }), attempt: attempt() }),
    ).toEqual({
      state: "TIMEOUT",
      attempts: 2,
      last_error: "boom",
      finished_at: 10_000,
    });
  });

  it("an offline node: the first refusal counts, asking again while it is away does not, until the TTL", () => {
    const first = afterFailure({
      ...base,
      nodeOffline: true,
      subtask: subtask(),
      attempt: attempt({ started_at: null }),
    });
    expect(first).toMatchObject({ state: "PENDING", attempts: 1, offline_since: 10_000, not_before: 13_000 });
    const again = afterFailure({
      ...base,
      nodeOffline: true,
      now: 13_000,
      subtask: subtask({ attempts: 2, offline_since: 10_000 }),
      attempt: attempt({ started_at: null, n: 2 }),
    });
    expect(again).toMatchObject({ state: "PENDING", attempts: 1, not_before: 16_000 });
    const gone = afterFailure({
      ...base,
      nodeOffline: true,
      now: 70_000,
      subtask: subtask({ attempts: 2, offline_since: 10_000 }),
      attempt: attempt({ started_at: null, n: 2 }),
    });
    expect(gone).toEqual({
      state: "FAILED",
      attempts: 1,
      last_error: "node work-srv did not come back within 60s (boom)",
      finished_at: 70_000,
    });
  });

  it("a node that drops mid-run uses the attempt; with no retry left it fails at once", () => {
    expect(
      afterFailure({ ...base, nodeOffline: true, subtask: subtask({ max_retries: 0 }), attempt: attempt() }),
    ).toMatchObject({ state: "FAILED", attempts: 1 });
  });
});
