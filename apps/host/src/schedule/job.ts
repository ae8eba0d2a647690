// A scheduled job: a reminder, a check or an event, once or recurring. A job's message
// text is written when it is created; nothing re-plans it at send time.

export type JobStatus = "pending" | "sent" | "cancelled" | "failed" | "missed";
/**
 * message: send the stored text. check: run a command or a coding prompt and report it.
 * event: a workspace event (events/): the assistant gets the text as a turn and its answer is sent.
 */
export type JobKind = "message" | "check" | "event";
/** When a check reports: every time, only when its result changed, or only when it failed. */
export type NotifyPolicy = "always" | "on_change" | "on_failure";
/** A run that was due while the host was down: send it late once, or record it as missed. */
export type LatePolicy = "catch_up" | "skip";

export interface ScheduledJob {
  id: number;
  user_id: string;
  platform: string;
  chat_id: string;
  kind: JobKind;
  /** The message to send, or what the check is about. */
  text: string;
  check_command: string | null;
  check_prompt: string | null;
  notify: NotifyPolicy;
  /** Next due time, ms since the epoch (UTC). */
  due_at: number;
  /** The user's IANA time zone: how times are shown, and what cron expressions mean. */
  time_zone: string;
  every_s: number | null;
  cron: string | null;
  max_runs: number | null;
  run_count: number;
  late_policy: LatePolicy;
  status: JobStatus;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  cancelled_by: string | null;
  sent_at: number | null;
  sent_message_id: string | null;
  last_error: string | null;
  /** The last check's outcome ("ok"/"fail" plus a digest of its output), for notify: on_change. */
  last_result: string | null;
  /** The events/ file this job came from (a periodic event's file stays and keys its job). */
  event_file: string | null;
  /** That file as it was read (inode, mtime, size): a file stored once is never stored again. */
  event_stamp: string | null;
}

export const isRecurring = (job: Pick<ScheduledJob, "every_s" | "cron">) =>
  job.every_s !== null || job.cron !== null;
