import type { AttemptRow, SubtaskChanges, SubtaskRow } from "./plan-ledger.ts";

// What becomes of a subtask when an attempt at it fails: PENDING again while it has retries left
// (its next attempt is told the error), else it ends FAILED or TIMEOUT. An attempt refused because
// its node is offline waits for the node — asking again every `nodeRetryMs` — for at most the
// subtask's TTL; asking again while the node is still away does not use up a retry.

export interface RetryInput {
  subtask: SubtaskRow;
  attempt: AttemptRow;
  state: "FAILED" | "TIMEOUT";
  error: string;
  nodeOffline: boolean;
  now: number;
  nodeRetryMs: number;
}

export function afterFailure({
  subtask,
  attempt,
  state,
  error,
  nodeOffline,
  now,
  nodeRetryMs,
}: RetryInput): SubtaskChanges {
  let attempts = subtask.attempts;
  let offlineSince = subtask.offline_since;
  if (nodeOffline) {
    if (attempt.started_at === null && offlineSince !== null) attempts -= 1;
    offlineSince ??= now;
    if (now - offlineSince >= subtask.ttl_s * 1000)
      return {
        state: "FAILED",
        attempts,
        last_error: `node ${subtask.node} did not come back within ${subtask.ttl_s}s (${error})`,
        finished_at: now,
      };
  }
  if (attempts <= subtask.max_retries)
    return {
      state: "PENDING",
      attempts,
      last_error: error,
      offline_since: offlineSince,
      not_before: nodeOffline ? now + nodeRetryMs : null,
    };
  return { state, attempts, last_error: error, finished_at: now };
}
