import type { WorkerResult } from "@phonework/protocol";

// A worker knows nothing but its task: what it needs from the subtasks it depends on, and why
// its previous attempt failed, are written into its context.

const RESULT_CHARS = 6000;

export function workerContext(
  context: string,
  inputs: ReadonlyArray<{ id: string; result: WorkerResult }>,
  previousError: string | null,
): string {
  const parts = context.trim() ? [context.trim()] : [];
  for (const { id, result } of inputs) {
    const body = [
      result.result,
      result.details ?? "",
      result.artifacts.length ? `artifacts: ${result.artifacts.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    parts.push(`Result of subtask [${id}] (${result.status}):\n${body.slice(0, RESULT_CHARS)}`);
  }
  if (previousError)
    parts.push(
      `A previous attempt at this task failed: ${previousError.slice(0, 2000)}\nAvoid repeating that.`,
    );
  return parts.join("\n\n");
}
