import type { JobOutcome, JobRequest, TaskRunner } from "./task-runner.ts";
import type { TaskRecord } from "./task-store.ts";

// Work a user is waiting for (a coding turn, a /shell command) that runs past LONG_TURN_S is not
// stopped: it becomes a background task, the user is answered with its id at once, and its result
// arrives as the task's completion. The work keeps running as it was; only who may cancel it,
// and where its progress goes, change.

export interface ForegroundWork<T> {
  /** The work, already running. */
  result: Promise<T>;
  /** How its result reads as a finished task. */
  outcome(result: T): JobOutcome;
  /**
   * Called as it moves to the background: from then on `signal` cancels it (the user's request
   * no longer does), and its progress goes to `onOutput`.
   */
  detach(signal: AbortSignal, onOutput: (chunk: string) => void): void;
}

export type Finished<T> = { detached: false; result: T } | { detached: true; task: TaskRecord };

export async function finishOrDetach<T>(
  tasks: TaskRunner,
  work: ForegroundWork<T>,
  task: Omit<JobRequest, "run">,
  /** How long the user waits for it (Infinity: to the end). */
  afterMs: number,
): Promise<Finished<T>> {
  if (!Number.isFinite(afterMs)) return { detached: false, result: await work.result };
  let timer: NodeJS.Timeout | undefined;
  const ranLong = new Promise<"long">((resolve) => {
    timer = setTimeout(() => resolve("long"), afterMs);
  });
  const first = await Promise.race([work.result.then((result) => ({ result })), ranLong]).finally(() =>
    clearTimeout(timer),
  );
  if (first !== "long") return { detached: false, result: first.result };
  const record = tasks.submit({
    ...task,
    run: async (signal, onOutput) => {
      work.detach(signal, onOutput);
      return work.outcome(await work.result);
    },
  });
  return { detached: true, task: record };
}
