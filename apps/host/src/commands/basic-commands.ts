import type { Clock } from "@phonework/runtime";
import { formatTaskList } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { executeShell, RunShellArgs } from "../tools/run-shell.ts";
import { ToolError } from "../tools/tool.ts";
import type { HostCommand } from "./host-command.ts";

/** /shell and /tasks: the machine without the model. */
export function basicCommands(deps: { workingDir: string; tasks: TaskRunner; clock: Clock }): HostCommand[] {
  return [
    {
      name: "shell",
      usage: "/shell <command>",
      description: "run a shell command directly (no AI)",
      async run(args, _request, ctx) {
        const parsed = RunShellArgs.safeParse({ command: args });
        if (!parsed.success) return "Usage: /shell <command>";
        try {
          return await executeShell(deps.workingDir, parsed.data, ctx.signal);
        } catch (error) {
          if (error instanceof ToolError) return `❌ ${error.message}`;
          throw error;
        }
      },
    },
    {
      name: "tasks",
      usage: "/tasks",
      description: "background tasks: running and recent",
      run: async () => formatTaskList(deps.tasks.list(), deps.clock.now()),
    },
  ];
}
