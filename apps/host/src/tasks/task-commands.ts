import type { Clock } from "@phonework/runtime";
import type { HostCommand } from "../contracts/host-command.ts";
import { formatTaskList } from "./format-tasks.ts";
import type { TaskRunner } from "./task-runner.ts";

/** /tasks and /kill: background tasks without the model. */
export function taskCommands(deps: { tasks: TaskRunner; clock: Clock }): HostCommand[] {
  return [
    {
      name: "tasks",
      usage: "/tasks",
      description: "your background tasks: running and recent",
      run: async (_args, request) => formatTaskList(deps.tasks.list(request.user_id), deps.clock.now()),
    },
    {
      name: "kill",
      usage: "/kill <task id>",
      description: "stop one of your background tasks (and what it started)",
      // It ends work that is running: it must not wait behind the user's current message.
      immediate: true,
      async run(args, request) {
        const id = args.trim().replace(/^#/, "");
        if (!id) return "Usage: /kill <task id> (/tasks lists yours)";
        return deps.tasks.cancel(request.user_id, id)
          ? `⏹️ Stopping task #${id}.`
          : `No running task #${id} of yours. /tasks lists them.`;
      },
    },
  ];
}
