import { formatDuration } from "@phonework/runtime";
import type { HostCommand } from "../contracts/host-command.ts";
import { ToolError } from "../contracts/tool.ts";
import { BoundedOutput } from "../os/bounded-output.ts";
import { runCommand } from "../os/process-tree.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import { finishOrDetach } from "../tasks/finish-or-detach.ts";
import { movedToBackgroundText } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { checkShellCommand, formatShellResult, MAX_OUTPUT_CHARS, shellOutcomeText } from "./run-shell.ts";

// /shell: a command on this machine without the model, under the rules of other long work: the
// request's signal (/stop, the router giving up) kills its process tree; past LONG_TURN_S it
// continues as a background task, and BACKGROUND_TIMEOUT_S after it started it is killed.

export interface ShellCommandDeps {
  workingDir: string;
  tasks: TaskRunner;
  /** How long the user waits for the output before the command becomes a task. */
  longTurnMs: number;
  /** Killed this long after it started, wherever it runs by then. */
  timeoutMs: number;
  /** Where commands run (default: unsandboxed). */
  sandbox?: ShellSandbox;
}

export function shellCommand(deps: ShellCommandDeps): HostCommand {
  const timedOut = `killed after ${formatDuration(deps.timeoutMs)} (BACKGROUND_TIMEOUT_S)`;
  return {
    name: "shell",
    usage: "/shell <command>",
    description: "run a shell command directly (no AI)",
    async run(args, request, ctx) {
      const command = args.trim();
      if (!command) return "Usage: /shell <command>";
      let cwd: string;
      try {
        cwd = checkShellCommand(deps.workingDir, command);
      } catch (error) {
        if (error instanceof ToolError) return `❌ ${error.message}`;
        throw error;
      }
      // Cancelled by the request until it moves to the background, then by its task.
      const controller = new AbortController();
      const cancel = () => controller.abort(ctx.signal.reason);
      if (ctx.signal.aborted) cancel();
      else ctx.signal.addEventListener("abort", cancel, { once: true });
      let toTask: ((chunk: string) => void) | undefined;
      // What it printed before it moved to the background: the task's output starts with it.
      const early = new BoundedOutput(MAX_OUTPUT_CHARS);
      const result = runCommand(command, {
        cwd,
        timeoutMs: deps.timeoutMs,
        signal: controller.signal,
        maxOutputChars: MAX_OUTPUT_CHARS,
        onOutput: (chunk) => (toTask ? toTask(chunk) : early.append(chunk)),
        ...(deps.sandbox
          ? {
              wrap: deps.sandbox.forScope({
                userId: request.user_id,
                chatId: request.chat_id,
                platform: request.platform,
              }),
            }
          : {}),
      });
      try {
        const done = await finishOrDetach(
          deps.tasks,
          {
            result,
            outcome: (ended) => ({
              ok: ended.exitCode === 0 && !ended.timedOut && !ended.cancelled,
              output: shellOutcomeText(ended, timedOut), // the task's description names the command
              exitCode: ended.exitCode,
            }),
            detach: (signal, onOutput) => {
              ctx.signal.removeEventListener("abort", cancel);
              signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
              onOutput(early.toString());
              toTask = onOutput;
            },
          },
          {
            kind: "shell",
            description: command.slice(0, 120),
            command,
            cwd,
            userId: request.user_id,
            chatId: request.chat_id,
            platform: request.platform,
          },
          deps.longTurnMs,
        );
        return done.detached
          ? movedToBackgroundText(deps.longTurnMs, done.task.id)
          : formatShellResult(command, done.result, timedOut);
      } finally {
        ctx.signal.removeEventListener("abort", cancel);
      }
    },
  };
}
