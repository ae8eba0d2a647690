import {
  OVERVIEW_LIMITS,
  type Overview,
  type OverviewJob,
  type OverviewPlan,
  type OverviewSession,
  type OverviewTask,
  type OverviewUsage,
} from "@phonework/protocol";
import type { PendingApproval } from "../coding/approval-broker.ts";
import type { SessionRecord } from "../coding/session-store.ts";
import { describeRepeat } from "../schedule/format-jobs.ts";
import type { ScheduledJob } from "../schedule/job.ts";
import type { TaskRecord } from "../tasks/task-store.ts";
import type { PlanRow, SubtaskRow } from "../workers/plan-ledger.ts";
import { clip } from "./clip-text.ts";
import type { SessionActivity } from "./session-activity.ts";

// One user's overview on this host, from the stores that hold their work: only what is theirs
// (every source is asked by user), cut to the protocol's bounds so the frame always parses and
// stays small. Each item names the commands that act on it; the host checks them again when run.

export interface OverviewSources {
  sessions: {
    list(userId: string): SessionRecord[];
    active(userId: string): SessionRecord | undefined;
    isBusy(id: string): boolean;
  };
  activity: Pick<SessionActivity, "get">;
  tasks: { list(userId: string): TaskRecord[]; get(userId: string, id: string): TaskRecord | undefined };
  plans: { plansOf(userId: string, limit: number): PlanRow[]; subtasks(planId: string): SubtaskRow[] };
  schedule: { list(userId: string): ScheduledJob[] };
  approvals: { pendingFor(userId: string): PendingApproval[] };
  /** What the user's model calls cost here (usage/), where the host counts it. */
  usage?: (userId: string) => OverviewUsage;
}

/** The end of `text` within `max` characters, starting with "…" when cut. */
function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

const { short, long } = OVERVIEW_LIMITS;

export function buildOverview(userId: string, sources: OverviewSources): Overview {
  return {
    sessions: sessionsOf(userId, sources),
    tasks: tasksOf(userId, sources),
    plans: sources.plans.plansOf(userId, OVERVIEW_LIMITS.plans).map((plan) => planOf(plan, sources)),
    schedule: sources.schedule.list(userId).slice(0, OVERVIEW_LIMITS.schedule).map(jobOf),
    approvals: sources.approvals
      .pendingFor(userId)
      .slice(0, OVERVIEW_LIMITS.approvals)
      .map((approval) => ({
        id: approval.id,
        what: clip(approval.what, long),
        asked_at: approval.askedAt,
        expires_at: approval.expiresAt,
        chat: clip(approval.chatId, 256),
        actions: [
          { label: "Approve", command: `/approve ${approval.id}` },
          { label: "Deny", command: `/deny ${approval.id}` },
        ],
      })),
    ...(sources.usage ? { usage: sources.usage(userId) } : {}),
  };
}

/** Working ones first, then the most recently used. */
function sessionsOf(userId: string, sources: OverviewSources): OverviewSession[] {
  const activeId = sources.sessions.active(userId)?.id;
  return sources.sessions
    .list(userId)
    .map((session) => ({ session, busy: sources.sessions.isBusy(session.id) }))
    .sort((a, b) => Number(b.busy) - Number(a.busy) || b.session.last_activity - a.session.last_activity)
    .slice(0, OVERVIEW_LIMITS.sessions)
    .map(({ session, busy }) => {
      const activity = sources.activity.get(session.id);
      const active = session.id === activeId;
      return {
        id: session.id,
        agent: session.agent,
        project: clip(session.project, 256),
        busy,
        active,
        ...(session.model ? { model: clip(session.model, 128) } : {}),
        last_activity: session.last_activity,
        progress: activity.progress.slice(-OVERVIEW_LIMITS.progressLines).map((line) => clip(line, short)),
        turns: activity.turns.slice(-OVERVIEW_LIMITS.turns).map((turn) => ({
          ...turn,
          prompt: clip(turn.prompt, short),
          ...(turn.answer !== undefined ? { answer: clip(turn.answer, long) } : {}),
        })),
        actions: busy
          ? [{ label: "Stop", command: "/stop" }]
          : active
            ? []
            : [{ label: "Use", command: `/use ${session.id}` }],
      };
    });
}

/** Running first, then the latest ended. */
function tasksOf(userId: string, sources: OverviewSources): OverviewTask[] {
  const all = sources.tasks.list(userId);
  return [
    ...all.filter((task) => task.status === "running"),
    ...all.filter((task) => task.status !== "running"),
  ]
    .slice(0, OVERVIEW_LIMITS.tasks)
    .map((task) => {
      const running = task.status === "running";
      // A running task's output is in memory, not in its record yet.
      const output = running ? (sources.tasks.get(userId, task.id)?.output ?? "") : task.output;
      return {
        id: task.id,
        kind: task.kind,
        description: clip(task.description, short),
        status: task.status,
        started_at: task.started_at,
        ...(task.finished_at !== undefined ? { finished_at: task.finished_at } : {}),
        ...(typeof task.exit_code === "number" ? { exit_code: task.exit_code } : {}),
        output_tail: tail(output, long),
        actions: running ? [{ label: "Cancel", command: `/kill ${task.id}` }] : [],
      };
    });
}

function planOf(plan: PlanRow, sources: OverviewSources): OverviewPlan {
  return {
    id: plan.id,
    goal: clip(plan.goal, short),
    status: plan.status,
    created_at: plan.created_at,
    ...(plan.finished_at !== null ? { finished_at: plan.finished_at } : {}),
    subtasks: sources.plans
      .subtasks(plan.id)
      .slice(0, OVERVIEW_LIMITS.subtasks)
      .map((subtask) => ({
        id: clip(subtask.id, 128),
        objective: clip(subtask.objective, short),
        state: subtask.state,
        ...(subtask.node ? { node: clip(subtask.node, 64) } : {}),
        attempts: subtask.attempts,
        ...(subtask.last_error ? { last_error: clip(subtask.last_error, short) } : {}),
      })),
    actions: plan.status === "running" ? [{ label: "Stop", command: "/stop" }] : [],
  };
}

function jobOf(job: ScheduledJob): OverviewJob {
  const repeat = describeRepeat(job);
  return {
    id: String(job.id),
    kind: job.kind,
    text: clip(job.kind === "check" ? `check ${job.text}` : job.text, short),
    due_at: job.due_at,
    ...(repeat ? { repeat: clip(repeat, 128) } : {}),
    time_zone: clip(job.time_zone, 64),
    actions: [{ label: "Cancel", command: `/cancel ${job.id}` }],
  };
}
