import { randomBytes } from "node:crypto";
import type { Clock, Logger } from "@phonework/runtime";
import { BoundedOutput } from "../tools/bounded-output.ts";
import { runCommand } from "../tools/process-tree.ts";
import type { TaskRecord, TaskStore } from "./task-store.ts";

// Background tasks (M2.4): submit returns a task id at once; the command runs on, and when
// it ends the user is notified through `onFinished`.

const OUTPUT_CHARS = 4000;

export interface ShellTaskRequest {
  command: string;
  cwd: string;
  description: string;
  userId: string;
  chatId: string;
  platform: string;
}

export interface TaskRunnerOptions {
  store: TaskStore;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  onFinished: (task: TaskRecord) => void;
  newId?: () => string;
}

export class TaskRunner {
  private readonly live = new Map<
    string,
    { output: BoundedOutput; controller: AbortController; done: Promise<void> }
  >();

  constructor(private readonly options: TaskRunnerOptions) {}

  submitShell(request: ShellTaskRequest): TaskRecord {
    const { store, clock } = this.options;
    const id = this.newId();
    const task: TaskRecord = {
      id,
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
    const done = runCommand(request.command, {
      cwd: request.cwd,
      timeoutMs: this.options.timeoutMs,
      signal: controller.signal,
      maxOutputChars: OUTPUT_CHARS,
      onOutput: (chunk) => output.append(chunk),
    }).then((result) => {
      const finished: TaskRecord = {
        ...task,
        status: result.cancelled ? "cancelled" : result.exitCode === 0 ? "done" : "failed",
        finished_at: clock.now(),
        exit_code: result.exitCode,
        output: result.timedOut
          ? `${output.toString()}\n[killed after ${Math.round(this.options.timeoutMs / 1000)}s]`
          : output.toString(),
      };
      this.live.delete(id);
      store.save(finished);
      this.options.logger.info({ taskId: id, status: finished.status }, "background task finished");
      this.options.onFinished(finished);
    });
    this.live.set(id, { output, controller, done });
    return task;
  }

  /** The task with its output so far (live for running tasks). */
  get(id: string): TaskRecord | undefined {
    const task = this.options.store.get(id);
    const live = this.live.get(id);
    return task && live ? { ...task, output: live.output.toString() } : task;
  }

  list(): TaskRecord[] {
    return this.options.store.list();
  }

  cancel(id: string): boolean {
    const live = this.live.get(id);
    live?.controller.abort();
    return live !== undefined;
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
