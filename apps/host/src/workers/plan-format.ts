import type { PeerNode } from "@phonework/protocol";
import { formatDuration } from "@phonework/runtime";
import type { AttemptRow, PlanRow, SubtaskRow } from "./plan-ledger.ts";
import type { WorkerSlot } from "./worker-pool.ts";

// What the user reads about a plan: the progress message kept up to date in the chat
// ("Worker-1 finished [scan], Worker-2 running [move]"), /plans, and plan_status for the master.

const elapsed = (from: number | null, to: number) => (from === null ? "" : ` ${formatDuration(to - from)}`);

const ICON: Record<SubtaskRow["state"], string> = {
  PENDING: "🕓",
  DISPATCHED: "📤",
  RUNNING: "⏳",
  COMPLETED: "✅",
  FAILED: "❌",
  TIMEOUT: "⌛",
  CANCELLED: "⏹️",
};

function subtaskLine(subtask: SubtaskRow, now: number): string {
  const who = subtask.worker ? `${subtask.worker} ` : "";
  const task = `[${subtask.id}]`;
  switch (subtask.state) {
    case "PENDING": {
      const waitingFor =
        subtask.attempts > 0 ? ` (retry ${subtask.attempts + 1}: ${subtask.last_error ?? ""})` : "";
      const needs =
        subtask.depends_on.length > 0 && subtask.attempts === 0
          ? ` (after ${subtask.depends_on.join(", ")})`
          : "";
      return `${ICON.PENDING} waiting ${task}${needs}${waitingFor}`;
    }
    case "DISPATCHED":
      return `${ICON.DISPATCHED} ${who}starting ${task}`;
    case "RUNNING":
      return `${ICON.RUNNING} ${who}running ${task}${elapsed(subtask.started_at, now)}`;
    case "COMPLETED":
      return `${ICON.COMPLETED} ${who}finished ${task}`;
    case "CANCELLED":
      return `${ICON.CANCELLED} cancelled ${task}`;
    default:
      return `${ICON[subtask.state]} ${who}${subtask.state === "TIMEOUT" ? "timed out" : "failed"} ${task}: ${subtask.last_error ?? "no reason given"}`;
  }
}

export function planHeadline(plan: PlanRow, subtasks: readonly SubtaskRow[]): string {
  const done = subtasks.filter((s) => s.state === "COMPLETED").length;
  const state =
    plan.status === "running"
      ? `${done}/${subtasks.length} done`
      : plan.status === "stopped"
        ? "stopped"
        : `finished: ${done}/${subtasks.length} done`;
  return `📋 Plan ${plan.id} · ${state} — ${plan.goal}`;
}

/** The progress message, edited in place while the plan runs. */
export function formatPlanProgress(plan: PlanRow, subtasks: readonly SubtaskRow[], now: number): string {
  return [planHeadline(plan, subtasks), ...subtasks.map((s) => subtaskLine(s, now))].join("\n");
}

/** /plans: the user's recent plans, one line each. */
export function formatPlanList(plans: readonly PlanRow[], subtasksOf: (id: string) => SubtaskRow[]): string {
  if (plans.length === 0)
    return "No plans yet. Ask for something big and the assistant may split it into a plan.";
  return [
    "Your plans (newest first):",
    ...plans.map((plan) => {
      const subtasks = subtasksOf(plan.id);
      const done = subtasks.filter((s) => s.state === "COMPLETED").length;
      return `• ${plan.id} ${plan.status} · ${done}/${subtasks.length} done — ${plan.goal.slice(0, 80)}`;
    }),
    "",
    "/plans <id> shows one; /stop cancels your running plans.",
  ].join("\n");
}

/** /plans <id> and plan_status: each subtask's state, worker, node, attempts and elapsed time. */
export function formatPlanDetail(
  plan: PlanRow,
  subtasks: readonly SubtaskRow[],
  attempts: readonly AttemptRow[],
  now: number,
): string {
  const lines = [planHeadline(plan, subtasks)];
  for (const subtask of subtasks) {
    const end = subtask.finished_at ?? now;
    const tries = attempts.filter((a) => a.subtask_id === subtask.id);
    lines.push(
      `${ICON[subtask.state]} ${subtask.id} · ${subtask.state} · ${subtask.worker ?? "no worker yet"} · node ${subtask.node ?? "here"} · attempts ${subtask.attempts}/${subtask.max_retries + 1}${subtask.started_at ? ` ·${elapsed(subtask.started_at, end)}` : ""}`,
      `   ${subtask.objective.slice(0, 160)}`,
    );
    if (subtask.result) lines.push(`   → ${subtask.result.status}: ${subtask.result.result.slice(0, 300)}`);
    else if (subtask.last_error) lines.push(`   → ${subtask.last_error.slice(0, 300)}`);
    for (const attempt of tries.filter((a) => a.error && a.state !== "COMPLETED"))
      lines.push(`   attempt ${attempt.n} ${attempt.state}: ${attempt.error?.slice(0, 200)}`);
  }
  if (plan.report) lines.push("", "Report:", plan.report);
  return lines.join("\n");
}

/** The workers' states: this host's slots (IDLE/BUSY with what they run), and the user's other nodes. */
export function formatWorkers(slots: readonly WorkerSlot[], peers: readonly PeerNode[] = []): string {
  const here = slots.map((slot) =>
    slot.taskId ? `${slot.name} BUSY (${slot.taskId})` : `${slot.name} IDLE`,
  );
  const there = peers
    .filter((peer) => peer.workers)
    .map((peer) => `${peer.node_id} ${peer.online ? "online" : "OFFLINE"}`);
  return [
    `Workers here: ${here.join(", ")}`,
    ...(there.length > 0 ? [`Other nodes: ${there.join(", ")}`] : []),
  ].join("\n");
}
