import type { Clock } from "@phonework/runtime";
import { z } from "zod";
import type { CodingTurns } from "../contracts/coding-turns.ts";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import { resolveInside } from "../os/path-guard.ts";
import { blockedReason } from "../sandbox/shell-guard.ts";
import { formatTaskStatus } from "./format-tasks.ts";
import type { TaskRunner } from "./task-runner.ts";

// run_background and task_status: long jobs run on after the reply; the user is
// notified when they finish.

export const RunBackgroundArgs = z
  .object({
    command: z
      .string()
      .min(1, "command must not be empty")
      .max(10_000)
      .optional()
      .describe("a shell command"),
    prompt: z.string().min(1).optional().describe("or: a prompt for a coding session"),
    session_id: z
      .string()
      .optional()
      .describe("prompt: the session (default: the active or most recent one)"),
    cwd: z.string().optional().describe("command: directory, relative to the working directory"),
    description: z.string().max(200).optional().describe("a short name for the task shown to the user"),
  })
  .refine((args) => (args.command === undefined) !== (args.prompt === undefined), {
    message: "give either command or prompt",
  });

export const TaskStatusArgs = z.object({ task_id: z.string().min(1) });

export function createBackgroundTools(
  runner: TaskRunner,
  workingDir: string,
  clock: Clock,
  coding: CodingTurns,
): Tool[] {
  const runBackground = defineTool({
    name: "run_background",
    description:
      "Start a long-running shell command (builds, test suites, downloads), or a prompt for a coding session, in the " +
      "background. Returns a task id at once; " +
      "the user is notified in chat when it finishes. Use task_status to check on it.",
    schema: RunBackgroundArgs,
    describe: (args) => `starting background task: ${(args.command ?? args.prompt ?? "").slice(0, 70)}`,
    async execute(args, ctx) {
      const owner = { userId: ctx.userId, chatId: ctx.chatId, platform: ctx.platform };
      if (args.prompt !== undefined) {
        const prompt = args.prompt;
        const session = coding.pick(ctx.userId, args.session_id);
        if (!session) throw new ToolError("no such coding session; start one first");
        const task = runner.submit({
          ...owner,
          kind: "session",
          description: args.description ?? `${session.agent} · ${session.project}: ${prompt.slice(0, 80)}`,
          command: prompt,
          cwd: session.cwd,
          run: async (signal, onOutput) => {
            const outcome = await coding.run(session, prompt, {
              ...owner,
              signal,
              progress: (line) => onOutput(`${line}\n`),
            });
            return { ok: outcome.ok, stopped: outcome.stopped, output: outcome.text };
          },
        });
        return `⏳ Task #${task.id} started: ${task.description}. The user will be notified when it's done.`;
      }
      const command = args.command ?? "";
      const reason = blockedReason(command);
      if (reason) throw new ToolError(`refused: this command looks destructive (${reason}); nothing was run`);
      const cwd = resolveInside(workingDir, args.cwd ?? ".");
      const task = runner.submitShell({
        ...owner,
        command,
        cwd,
        description: args.description ?? command.slice(0, 120),
      });
      return `⏳ Task #${task.id} started: ${task.description}. The user will be notified when it's done.`;
    },
  });
  const taskStatus = defineTool({
    name: "task_status",
    description: "Status, elapsed time and output so far of a background task.",
    schema: TaskStatusArgs,
    async execute(args, ctx) {
      const task = runner.get(ctx.userId, args.task_id.replace(/^#/, ""));
      if (!task) throw new ToolError(`no task #${args.task_id}`);
      return formatTaskStatus(task, clock.now());
    },
  });
  return [runBackground, taskStatus];
}
