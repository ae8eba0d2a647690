import { isTimeZone } from "../config/time-zone.ts";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { LatePolicy, NotifyPolicy } from "./job.ts";
import type { NewJob } from "./job-store.ts";
import { checkRecurrence, firstRun } from "./recurrence.ts";
import { type Parsed, parseDelaySeconds, parseWhen } from "./when.ts";

// Turns what the model or a /remind command asked for into a job, or one clear error naming
// the problem. Nothing is stored for a request that fails here.

export interface ScheduleRequest {
  /** Absolute: "2026-12-01T09:00" (user's zone) or with an offset. */
  at?: string | undefined;
  /** Relative: "10m", "1h30m". */
  delay?: string | undefined;
  /** kind message: the text sent at the time, as is. */
  message?: string | undefined;
  /** kind check: a shell command, or a prompt for the user's coding session. */
  check_command?: string | undefined;
  check_prompt?: string | undefined;
  /** For checks: what the report is about, e.g. "the tests". */
  description?: string | undefined;
  notify?: NotifyPolicy | undefined;
  every?: string | undefined;
  cron?: string | undefined;
  max_runs?: number | undefined;
  time_zone?: string | undefined;
  if_missed?: LatePolicy | undefined;
}

export interface PlanLimits {
  minIntervalS: number;
  defaultTimeZone: string;
}

const MAX_TEXT = 4000;

export function planJob(
  request: ScheduleRequest,
  owner: ChatOwner,
  now: number,
  limits: PlanLimits,
  createdBy: string | null,
): Parsed<NewJob> {
  const fail = (error: string): Parsed<NewJob> => ({ ok: false, error });
  const message = request.message?.trim();
  const command = request.check_command?.trim();
  const prompt = request.check_prompt?.trim();
  const given = [request.message, request.check_command, request.check_prompt].filter((v) => v !== undefined);
  if (given.length !== 1) return fail("give exactly one of: message, check_command, check_prompt");
  if (!(message || command || prompt)) return fail("the text is empty: say what to send or what to check");
  if ((message ?? command ?? prompt ?? "").length > MAX_TEXT)
    return fail(`the text is over ${MAX_TEXT} characters`);

  const timeZone = request.time_zone ?? limits.defaultTimeZone;
  if (!isTimeZone(timeZone))
    return fail(`unknown time zone "${timeZone}": use an IANA name like Asia/Shanghai`);

  let everyS: number | null = null;
  if (request.every !== undefined) {
    const seconds = parseDelaySeconds(request.every);
    if (seconds === undefined)
      return fail(`cannot read the interval "${request.every}": use e.g. 5m, 1h, 1d`);
    everyS = Math.round(seconds);
  }
  const recurrence = checkRecurrence(
    { every_s: everyS, cron: request.cron?.trim() || null, time_zone: timeZone },
    limits.minIntervalS,
    now,
  );
  if (!recurrence.ok) return fail(recurrence.error);
  const recurring = recurrence.value.every_s !== null || recurrence.value.cron !== null;
  if (request.max_runs !== undefined) {
    if (!recurring) return fail("max_runs needs a recurrence (every or cron)");
    if (!Number.isInteger(request.max_runs) || request.max_runs < 1)
      return fail("max_runs must be a whole number ≥ 1");
  }

  if (request.at !== undefined && request.delay !== undefined)
    return fail("give either at or delay, not both");
  let dueAt: number;
  const when = request.at ?? request.delay;
  if (when !== undefined) {
    const parsed = parseWhen(when, now, timeZone);
    if (!parsed.ok) return fail(parsed.error);
    dueAt = parsed.value;
  } else if (recurring) dueAt = firstRun(recurrence.value, now);
  else return fail("say when: a delay like 10m, or a time like 2026-12-01T09:00");

  return {
    ok: true,
    value: {
      user_id: owner.userId,
      platform: owner.platform,
      chat_id: owner.chatId,
      kind: message !== undefined ? "message" : "check",
      text: message || request.description?.trim() || command || prompt || "",
      check_command: command ?? null,
      check_prompt: prompt ?? null,
      notify: request.notify ?? "always",
      due_at: dueAt,
      time_zone: timeZone,
      every_s: recurrence.value.every_s,
      cron: recurrence.value.cron,
      max_runs: request.max_runs ?? null,
      late_policy: request.if_missed ?? "catch_up",
      created_by: createdBy,
    },
  };
}
