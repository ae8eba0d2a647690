import { DateTime } from "luxon";
import { z } from "zod";
import { isTimeZone } from "../config/time-zone.ts";
import type { ScheduledJob } from "./job.ts";
import type { NewJob } from "./job-store.ts";
import type { PlanLimits } from "./plan-job.ts";
import { checkRecurrence, firstRun } from "./recurrence.ts";
import type { Parsed } from "./when.ts";

// One file of the workspace's events/ directory: what it may say (checked on every read) and
// the scheduled job it becomes. Anything wrong is one error naming the field.

/** Bigger files are refused unread. */
export const MAX_EVENT_FILE_BYTES = 64 * 1024;
const MAX_TEXT = 4000;

/** `<adapter>:<chat>`: the adapter's name as the router qualifies ids, then the platform's chat id. */
const Channel = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}:[^\s].{0,199}$/, 'must be "<adapter>:<chat>", e.g. "telegram:123"');
const TimeZone = z.string().refine(isTimeZone, "is not an IANA time zone, e.g. Europe/Berlin");

const common = {
  channel: Channel,
  text: z.string().trim().min(1, "is empty").max(MAX_TEXT),
  /** Whose job it is (the router checks the node serves them); default: the channel's id. */
  user: z.string().min(1).max(200).optional(),
  /** event: the assistant answers the text; message: the text is sent as is. */
  kind: z.enum(["event", "message"]).default("event"),
  if_missed: z.enum(["catch_up", "skip"]).default("catch_up"),
};

export const EventFile = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("immediate"), ...common }),
  z.strictObject({
    type: z.literal("one-shot"),
    ...common,
    at: z.string().min(1),
    timezone: TimeZone.optional(),
  }),
  z.strictObject({
    type: z.literal("periodic"),
    ...common,
    schedule: z.string().trim().min(1),
    timezone: TimeZone.optional(),
  }),
]);
export type EventFile = z.infer<typeof EventFile>;

/** The file's text read as an event, or why it is not one. */
export function readEvent(text: string): Parsed<EventFile> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  const parsed = EventFile.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join(".");
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return { ok: false, error: problems.join("; ") };
}

/** Where an event's job comes from: the file's name, and the file as it was read. */
export interface EventSource {
  file: string;
  stamp: string;
}

/** The job an event becomes, or why its time or schedule cannot be used. */
export function eventJob(
  event: EventFile,
  source: EventSource,
  now: number,
  limits: PlanLimits,
): Parsed<NewJob> {
  const timeZone = (event.type !== "immediate" && event.timezone) || limits.defaultTimeZone;
  let dueAt = now;
  let cron: string | null = null;
  if (event.type === "one-shot") {
    const at = DateTime.fromISO(event.at, { zone: timeZone });
    if (!at.isValid)
      return { ok: false, error: `at: cannot read "${event.at}"; write e.g. 2026-12-15T09:00:00+01:00` };
    // A time already past (written while the host was down) fires now, late, like a reminder.
    dueAt = at.toMillis();
  } else if (event.type === "periodic") {
    const recurrence = checkRecurrence(
      { every_s: null, cron: event.schedule, time_zone: timeZone },
      limits.minIntervalS,
      now,
    );
    if (!recurrence.ok) return { ok: false, error: `schedule: ${recurrence.error}` };
    cron = event.schedule;
    dueAt = firstRun(recurrence.value, now);
  }
  return {
    ok: true,
    value: {
      user_id: event.user ?? event.channel,
      platform: event.channel.slice(0, event.channel.indexOf(":")),
      // Chat ids are qualified at the host, as the router sends them.
      chat_id: event.channel,
      kind: event.kind,
      text: event.text,
      due_at: dueAt,
      time_zone: timeZone,
      cron,
      late_policy: event.if_missed,
      created_by: `events/${source.file}`,
      event_file: source.file,
      event_stamp: source.stamp,
    },
  };
}

/** Whether a stored periodic job already does what the file now says (then it is kept, with its due time). */
export function sameEvent(job: ScheduledJob, next: NewJob): boolean {
  return (
    job.user_id === next.user_id &&
    job.platform === next.platform &&
    job.chat_id === next.chat_id &&
    job.kind === next.kind &&
    job.text === next.text &&
    job.cron === next.cron &&
    job.time_zone === next.time_zone &&
    job.late_policy === next.late_policy
  );
}
