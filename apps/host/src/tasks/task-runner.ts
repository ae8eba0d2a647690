import { randomBytes } from "node:crypto";
import type { Clock, Logger } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { BoundedOutput } from "../os/bounded-output.ts";
import { runCommand } from "../os/process-tree.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import type { TaskRecord, TaskStore } from "./task-store.ts";

// Background tasks: submit returns a task id at once; the work runs on, and when it
// ends the user is notified through `onFinished`. A task is a shell command, or any job
// (a coding-session turn that ran long).

const OUTPUT_CHARS = 4000;

export interface ShellTaskRequest extends ChatOwner {
  command: string;
  cwd: string;
  description: string;
}

export interface JobOutcome {
  ok: boolean;
  /** The work was stopped from outside the task runner (a coding turn ended by /stop). */
  stopped?: boolean;
  /** The whole result (e.g. an agent's answer); the record keeps a bounded copy. */
  output: string;
  exitCode?: number | null;
}

export interface JobRequest extends ChatOwner {
  kind: TaskRecord["kind"];
  description: string;
  command: string;
  cwd: string;
  run: (signal: AbortSignal, onOutput: (chunk: string) => void) => Promise<JobOutcome>;
}

/** A finished task's status: cancelled through the runner, stopped by the user, else by its outcome. */
export function finishedStatus(outcome: JobOutcome, cancelled: boolean): TaskRecord["status"] {
  if (cancelled) return "cancelled";
  if (outcome.stopped) return "stopped";
  return outcome.ok ? "done" : "failed";
}

export interface TaskRunnerOptions {
  store: TaskStore;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  /** Called with the finished task inside the same transaction as its save (it enqueues the notice). */
  onFinished: (task: TaskRecord, fullOutput: string) => void;
  newId?: () => string;
  /**
   * Runs `fn` in one database transaction, so a task's end and the outbox item announcing it commit
   * together or not at all. Default: just calls `fn` (stores with nothing to share a transaction with).
   */
  transaction?: (fn: () => void) => void;
  /** Where shell tasks run (default: unsandboxed). */
  sandbox?: ShellSandbox;
}

export class TaskRunner {
  private readonly live = new Map<
    string,
    { output: BoundedOutput; controller: AbortController; done: Promise<void> }
  >();

  constructor(private readonly options: TaskRunnerOptions) {}

  submitShell(request: ShellTaskRequest): TaskRecord {
    const timeoutS = Math.round(this.options.timeoutMs / 1000);
    return this.submit({
      ...request,
      kind: "shell",
      run: async (signal, onOutput) => {
        const output = new BoundedOutput(OUTPUT_CHARS);
        const result = await runCommand(request.command, {
          cwd: request.cwd,
          timeoutMs: this.options.timeoutMs,
          signal,
          maxOutputChars: OUTPUT_CHARS,
          onOutput: (chunk) => {
            output.append(chunk);
            onOutput(chunk);
          },
          ...(this.options.sandbox ? { wrap: this.options.sandbox.forScope(request) } : {}),
        });
        const text = result.timedOut
          ? `${output.toString()}\n[killed after ${timeoutS}s]`
          : output.toString();
        return { ok: result.exitCode === 0 && !result.cancelled, output: text, exitCode: result.exitCode };
      },
    });
  }

  submit(request: JobRequest): TaskRecord {
    const { store, clock } = this.options;
    const id = this.newId();
    const task: TaskRecord = {
      id,
      kind: request.kind,
      description: request.description,
      command: request.command,
      cwd: request.cwd,
      user_id: request.userId,
      chat_id: request.chatId,
      platform: request.platform,
      status: "running",
      started_at: clock.now(),
      output: "",
    };
    store.save(task);
    const output = new BoundedOutput(OUTPUT_CHARS);
    const controller = new AbortController();
    const done = request
      .run(controller.signal, (chunk) => output.append(chunk))
      .catch(
        (error: unknown): JobOutcome => ({
          ok: false,
          output: `failed: ${(error as Error)?.message ?? error}`,
        }),
      )
      .then((outcome) => {
        const status = finishedStatus(outcome, controller.signal.aborted);
        const finished: TaskRecord = {
          ...task,
          status,
          finished_at: clock.now(),
          ...(outcome.exitCode !== undefined ? { exit_code: outcome.exitCode } : {}),
          output: outcome.output.length > OUTPUT_CHARS ? outcome.output.slice(-OUTPUT_CHARS) : outcome.output,
        };
        this.live.delete(id);
        const { transaction = (fn) => fn(), logger } = this.options;
        try {
          transaction(() => {
            store.save(finished);
            this.options.onFinished(finished, outcome.output);
          });
        } catch (error) {
          // Rolled back: the task stays `running` in the store and shows as `lost` after a restart.
          logger.error({ err: error, taskId: id, status }, "background task end not recorded");
          return;
        }
        logger.info({ taskId: id, status }, "background task finished");
      });
    this.live.set(id, { output, controller, done });
    return task;
  }

  // Every read and cancel names the user: a node may serve several, and another user's task id is
  // as unknown as a made-up one (its command and output are theirs).

  /** The user's task with its output so far (live for running tasks). */
  get(userId: string, id: string): TaskRecord | undefined {
    const task = this.options.store.get(id);
    if (task?.user_id !== userId) return undefined;
    const live = this.live.get(id);
    return live ? { ...task, output: live.output.toString() } : task;
  }

  /** The user's tasks, newest first. */
  list(userId: string): TaskRecord[] {
    return this.options.store.list().filter((task) => task.user_id === userId);
  }

  /** Cancels the user's running task; false when it is not theirs or not running. */
  cancel(userId: string, id: string): boolean {
    const live = this.live.get(id);
    if (!live || this.options.store.get(id)?.user_id !== userId) return false;
    live.controller.abort();
    return true;
  }

  /** Cancels every running task and waits for them to record their end. */
  async stopAll(): Promise<void> {
    for (const live of this.live.values()) live.controller.abort();
    await Promise.all([...this.live.values()].map((live) => live.done));
  }

  private newId(): string {
    for (;;) {
      const id = this.options.newId?.() ?? randomBytes(3).toString("hex");
      if (!this.options.store.has(id)) return id;
    }
  }
}
