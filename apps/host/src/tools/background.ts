import type { Clock } from "@phonework/runtime";
import { z } from "zod";
import { formatTaskStatus } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { resolveInside } from "./path-guard.ts";
import { blockedReason } from "./shell-guard.ts";
import { defineTool, type Tool, ToolError } from "./tool.ts";

// run_background and task_status (M2.4): long jobs run on after the reply; the user is
// notified when they finish.

export const RunBackgroundArgs = z.object({
  command: z.string().min(1, "command must not be empty").max(10_000),
  cwd: z.string().optional().describe("directory, relative to the working directory"),
  description: z.string().max(200).optional().describe("a short name for the task shown to the user"),
});

export const TaskStatusArgs = z.object({ task_id: z.string().min(1) });

export function createBackgroundTools(runner: TaskRunner, workingDir: string, clock: Clock): Tool[] {
  const runBackground = defineTool({
    name: "run_background",
    description:
      "Start a long-running shell command (builds, test suites, downloads) in the background. Returns a task id at once; " +
      "the user is notified in chat when it finishes. Use task_status to check on it.",
    schema: RunBackgroundArgs,
    describe: (args) => `starting background task: ${args.command.slice(0, 70)}`,
    async execute(args, ctx) {
      const reason = blockedReason(args.command);
      if (reason) throw new ToolError(`refused: this command looks destructive (${reason}); nothing was run`);
      const cwd = resolveInside(workingDir, args.cwd ?? ".");
      const task = runner.submitShell({
        command: args.command,
        cwd,
        description: args.description ?? args.command.slice(0, 120),
        userId: ctx.userId,
        chatId: ctx.chatId,
        platform: ctx.platform,
      });
      return `⏳ Task #${task.id} started: ${task.description}. The user will be notified when it's done.`;
    },
  });
  const taskStatus = defineTool({
    name: "task_status",
    description: "Status, elapsed time and output so far of a background task.",
    schema: TaskStatusArgs,
    async execute(args) {
      const task = runner.get(args.task_id.replace(/^#/, ""));
      if (!task) throw new ToolError(`no task #${args.task_id}`);
      return formatTaskStatus(task, clock.now());
    },
  });
  return [runBackground, taskStatus];
}
