import type { Clock } from "@phonework/runtime";
import { formatTaskList } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import type { HostCommand } from "./host-command.ts";
import { type ShellCommandDeps, shellCommand } from "./shell-command.ts";

/** /shell and /tasks: the machine without the model. */
export function basicCommands(deps: ShellCommandDeps & { tasks: TaskRunner; clock: Clock }): HostCommand[] {
  return [
    shellCommand(deps),
    {
      name: "tasks",
      usage: "/tasks",
      description: "background tasks: running and recent",
      run: async () => formatTaskList(deps.tasks.list(), deps.clock.now()),
    },
  ];
}
