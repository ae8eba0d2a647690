import type { ScheduledJob } from "./job.ts";
import { formatTime } from "./when.ts";

// How jobs read in chat (/reminders, list_scheduled).

/** How a job repeats, in words ("every 3600s, run 2/5", `cron "0 3 * * *"`); "" for a one-off. */
export function describeRepeat(job: ScheduledJob): string {
  const every =
    job.every_s !== null ? `every ${job.every_s}s` : job.cron !== null ? `cron "${job.cron}"` : "";
  if (!every) return "";
  const runs =
    job.max_runs !== null
      ? `, run ${job.run_count}/${job.max_runs}`
      : job.run_count
        ? `, run ${job.run_count}`
        : "";
  return `${every}${runs}`;
}

function repeatText(job: ScheduledJob): string {
  const repeat = describeRepeat(job);
  return repeat ? ` · ${repeat}` : "";
}

/** Where an event job came from; a periodic event's file is deleted when the job is cancelled. */
function eventText(job: ScheduledJob): string {
  if (job.event_file === null) return "";
  const kind = job.kind === "event" ? "event for the assistant" : "event";
  return ` (${kind}, events/${job.event_file}${job.cron !== null ? "; /cancel deletes the file" : ""})`;
}

export function formatJob(job: ScheduledJob): string {
  const what =
    job.kind === "message" || job.kind === "event"
      ? `"${job.text}"`
      : `check ${job.text} (${job.check_command ? `$ ${job.check_command}` : "prompt"}; notify ${job.notify})`;
  const when = job.status === "pending" ? formatTime(job.due_at, job.time_zone) : job.status;
  return `#${job.id} ${when}${repeatText(job)} — ${what}${eventText(job)}`;
}

export function formatJobList(jobs: ScheduledJob[]): string {
  if (jobs.length === 0) return "No reminders or scheduled checks. Try /remind 10m stretch your legs.";
  return ["Scheduled:", ...jobs.map(formatJob), "", "/cancel <id> cancels one."].join("\n");
}
