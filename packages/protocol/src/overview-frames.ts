import { z } from "zod";
import { Button } from "./button.ts";

// A user's work on a host as the web console shows it: coding sessions with their live progress and
// recent turns, background tasks, Master/Worker plans, reminders and events, pending approvals. The
// router asks for it (`overview_request`) when a console page of the user is open; the host says
// when it may have changed (`overview_changed`, coalesced), and the router asks again. Nothing is
// polled. Sent only to a node whose register lists the OVERVIEW_CAPABILITY.
//
// Every entry carries its `actions`: buttons whose commands the host itself answers (/cancel 12,
// /approve ab12), run by the console as the user's own chat message to that node — so the host's
// usual checks (is it this user's reminder, approval, task?) decide, not the page.

/** In a register's `capabilities`: the node answers `overview_request`. */
export const OVERVIEW_CAPABILITY = "overview";

/**
 * Bounds of one overview: at most about 350 KB of JSON, however much the user has going on (the
 * router asks again at each change, so the bound is also what a busy page costs per update).
 */
export const OVERVIEW_LIMITS = {
  sessions: 10,
  progressLines: 10,
  turns: 5,
  tasks: 20,
  plans: 5,
  subtasks: 20,
  schedule: 100,
  approvals: 10,
  /** Characters of a short text (a prompt, a description, a goal). */
  short: 300,
  /** Characters of a long text (an answer, an approval's question, a task's output tail). */
  long: 2000,
} as const;

const Id = z.string().min(1).max(128);
const UserId = z.string().min(1).max(256);
const Short = z.string().max(OVERVIEW_LIMITS.short);
const Long = z.string().max(OVERVIEW_LIMITS.long);
/** Epoch ms. */
const At = z.number().nonnegative();
const Actions = z.array(Button).max(4);

export const OverviewTurn = z.object({
  prompt: Short,
  /** The answer, or how far it got (ends with "…" when cut). Absent while the turn runs. */
  answer: Long.optional(),
  ok: z.boolean().optional(),
  started_at: At,
  ended_at: At.optional(),
});
export type OverviewTurn = z.infer<typeof OverviewTurn>;

export const OverviewSession = z.object({
  id: Id,
  agent: z.string().min(1).max(64),
  project: z.string().max(256),
  busy: z.boolean(),
  active: z.boolean(),
  model: z.string().max(128).optional(),
  last_activity: At,
  /** The running turn's latest progress lines, oldest first (empty when idle). */
  progress: z.array(Short).max(OVERVIEW_LIMITS.progressLines),
  /** The latest turns (kept by the host across its restarts), oldest first (the running one last). */
  turns: z.array(OverviewTurn).max(OVERVIEW_LIMITS.turns),
  actions: Actions,
});
export type OverviewSession = z.infer<typeof OverviewSession>;

export const OverviewTask = z.object({
  id: Id,
  kind: z.enum(["shell", "session"]),
  description: Short,
  status: z.enum(["running", "done", "failed", "stopped", "cancelled", "lost"]),
  started_at: At,
  finished_at: At.optional(),
  /** Absent while running, or when it was killed. */
  exit_code: z.number().int().optional(),
  /** The end of its output so far. */
  output_tail: Long,
  actions: Actions,
});
export type OverviewTask = z.infer<typeof OverviewTask>;

export const OverviewSubtask = z.object({
  id: Id,
  objective: Short,
  state: z.enum(["PENDING", "DISPATCHED", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"]),
  /** The node it was pinned to or ran on. */
  node: z.string().max(64).optional(),
  attempts: z.number().int().nonnegative(),
  last_error: Short.optional(),
});
export type OverviewSubtask = z.infer<typeof OverviewSubtask>;

export const OverviewPlan = z.object({
  id: Id,
  goal: Short,
  status: z.enum(["running", "done", "failed", "stopped"]),
  created_at: At,
  finished_at: At.optional(),
  subtasks: z.array(OverviewSubtask).max(OVERVIEW_LIMITS.subtasks),
  actions: Actions,
});
export type OverviewPlan = z.infer<typeof OverviewPlan>;

/** A reminder, a scheduled check or a workspace event that is still to run. */
export const OverviewJob = z.object({
  id: Id,
  kind: z.enum(["message", "check", "event"]),
  text: Short,
  due_at: At,
  /** How it repeats, in words ("every 1h", "cron 0 3 * * *"); absent for a one-off. */
  repeat: z.string().max(128).optional(),
  time_zone: z.string().max(64),
  actions: Actions,
});
export type OverviewJob = z.infer<typeof OverviewJob>;

export const OverviewApproval = z.object({
  id: Id,
  /** What the coding agent asks to do. */
  what: Long,
  asked_at: At,
  /** Declined automatically then. */
  expires_at: At,
  /** The chat the question was sent to, qualified (`telegram:42`). */
  chat: z.string().max(256).optional(),
  actions: Actions,
});
export type OverviewApproval = z.infer<typeof OverviewApproval>;

const Count = z.number().int().nonnegative();
const Usd = z.number().nonnegative();

/**
 * What the user's model calls cost on the host: the tokens (in + out) and priced cost of each of the
 * last days (oldest first, in the host's time zone), and the last 30 days per kind (assistant, plan
 * workers, plan reports, coding sessions per project). Optional: a host without it sends none.
 */
export const OverviewUsage = z.object({
  days: z.array(z.object({ day: z.string().max(10), tokens: Count, cost_usd: Usd })).max(31),
  kinds: z
    .array(
      z.object({
        kind: Short,
        calls: Count,
        input: Count,
        cached_input: Count,
        output: Count,
        /** Absent when none of its calls had a price. */
        cost_usd: Usd.optional(),
      }),
    )
    .max(20),
});
export type OverviewUsage = z.infer<typeof OverviewUsage>;

export const Overview = z.object({
  sessions: z.array(OverviewSession).max(OVERVIEW_LIMITS.sessions),
  tasks: z.array(OverviewTask).max(OVERVIEW_LIMITS.tasks),
  plans: z.array(OverviewPlan).max(OVERVIEW_LIMITS.plans),
  schedule: z.array(OverviewJob).max(OVERVIEW_LIMITS.schedule),
  approvals: z.array(OverviewApproval).max(OVERVIEW_LIMITS.approvals),
  usage: OverviewUsage.optional(),
});
export type Overview = z.infer<typeof Overview>;

// ── router → host ────────────────────────────────────────────────────────────

/** Asks for `user_id`'s overview; answered by `overview` with the same id, or an `error` with it. */
export const OverviewRequestFrame = z.object({
  type: z.literal("overview_request"),
  id: Id,
  user_id: UserId,
});

// ── host → router ────────────────────────────────────────────────────────────

/** The overview of `user_id` on this host, as of `at`. Sent live, never queued. */
export const OverviewFrame = z.object({
  type: z.literal("overview"),
  id: Id,
  user_id: UserId,
  at: At,
  overview: Overview,
});

/**
 * These users' overviews may have changed (a turn's progress, a task ended, a reminder set or
 * sent, an approval asked or answered). Coalesced by the host; sent whether or not anyone looks.
 */
export const OverviewChangedFrame = z.object({
  type: z.literal("overview_changed"),
  user_ids: z.array(UserId).min(1).max(100),
});

export const overviewRouterFrames = [OverviewRequestFrame] as const;
export const overviewHostFrames = [OverviewFrame, OverviewChangedFrame] as const;

export type OverviewRequestFrame = z.infer<typeof OverviewRequestFrame>;
export type OverviewFrame = z.infer<typeof OverviewFrame>;
export type OverviewChangedFrame = z.infer<typeof OverviewChangedFrame>;
