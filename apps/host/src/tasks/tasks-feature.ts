import { join } from "node:path";
import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import { ownerOf } from "../contracts/chat-owner.ts";
import type { CodingTurns } from "../contracts/coding-turns.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { Outbox } from "../delivery/outbox.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import { createBackgroundTools } from "./background-tools.ts";
import { taskLine } from "./format-tasks.ts";
import { taskCommands } from "./task-commands.ts";
import { TaskRunner } from "./task-runner.ts";
import { TaskStore } from "./task-store.ts";

// Background tasks: long shell commands and coding turns that run on after the reply, each told
// to its chat when it ends. The runner opens first (coding sessions run their long turns on it);
// the tools and commands come once coding sessions exist to take prompts.

export interface TaskRunnerDeps {
  config: Pick<HostConfig, "BACKGROUND_TIMEOUT_S">;
  db: SqliteDatabase;
  stateDir: string;
  clock: Clock;
  logger: Logger;
  outbox: Outbox;
  transaction: (fn: () => void) => void;
  sandbox: ShellSandbox;
}

export function openTaskRunner(deps: TaskRunnerDeps): TaskRunner {
  const { clock, outbox } = deps;
  return new TaskRunner({
    store: TaskStore.open(deps.db, clock.now(), join(deps.stateDir, "tasks.json"), deps.logger),
    timeoutMs: deps.config.BACKGROUND_TIMEOUT_S * 1000,
    clock,
    logger: deps.logger,
    // A task's end commits with the outbox item that announces it.
    transaction: deps.transaction,
    sandbox: deps.sandbox,
    onFinished: (task, fullOutput) => {
      const owner = ownerOf(task);
      // A coding turn's answer is delivered whole (code blocks intact), not as a truncated summary.
      if (task.kind === "session")
        outbox.notify(owner, `${taskLine(task, clock.now())}\n\n${fullOutput}`, { alert: "task" });
      else
        outbox.taskComplete(owner, {
          task_id: task.id,
          ok: task.status === "done",
          description: task.description,
          output: task.output,
          elapsed_ms: (task.finished_at ?? clock.now()) - task.started_at,
        });
    },
  });
}

export interface TasksFeatureDeps {
  config: Pick<HostConfig, "WORKING_DIR">;
  tasks: TaskRunner;
  clock: Clock;
  /** Where a prompt for a coding session goes when it runs as a task. */
  coding: CodingTurns;
}

export function createTasksFeature(deps: TasksFeatureDeps): HostFeature {
  const { tasks, clock } = deps;
  return {
    name: "tasks",
    tools: createBackgroundTools(tasks, deps.config.WORKING_DIR, clock, deps.coding),
    commands: taskCommands({ tasks, clock }),
    capabilities: () => ["background"],
    stop: () => tasks.stopAll(),
  };
}
