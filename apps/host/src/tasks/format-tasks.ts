import { formatDuration } from "@phonework/runtime";
import type { TaskRecord } from "./task-store.ts";

// How tasks read in chat (/tasks and task_status).

const ICON: Record<TaskRecord["status"], string> = {
  running: "⏳",
  done: "✅",
  failed: "❌",
  stopped: "⏹️",
  cancelled: "⏹️",
  lost: "💀",
};

export function taskLine(task: TaskRecord, now: number): string {
  const elapsed = formatDuration((task.finished_at ?? now) - task.started_at);
  const state =
    task.status === "running"
      ? `running ${elapsed}`
      : task.status === "lost"
        ? "lost (the host stopped while it ran)"
        : `${task.status} in ${elapsed}`;
  return `${ICON[task.status]} #${task.id} ${state} — ${task.description}`;
}

export function formatTaskList(tasks: TaskRecord[], now: number, recent = 10): string {
  if (tasks.length === 0) return "No background tasks yet.";
  const running = tasks.filter((t) => t.status === "running");
  const finished = tasks.filter((t) => t.status !== "running").slice(0, recent);
  return ["Tasks:", ...[...running, ...finished].map((task) => taskLine(task, now))].join("\n");
}

export function formatTaskStatus(task: TaskRecord, now: number): string {
  const output = task.output.trim() ? `\noutput so far:\n${task.output}` : "\n(no output yet)";
  return `${taskLine(task, now)}\ncommand: ${task.command}${task.exit_code !== undefined && task.exit_code !== null ? `\nexit code: ${task.exit_code}` : ""}${output}`;
}

/** The answer to a request that ran long and now continues as a background task. */
export const movedToBackgroundText = (afterMs: number, taskId: string) =>
  `⏳ This is taking a while (over ${formatDuration(afterMs)}), so it continues as task #${taskId}. I'll send the answer when it's done; /tasks shows it.`;
