import { Cron } from "croner";
import type { Parsed } from "./when.ts";

// When a recurring job runs next. Interval jobs keep their grid while on time; after an outage
// they re-arm from now, so missed runs never fire as a burst. Cron jobs use croner in the job's zone.

export interface Recurrence {
  every_s: number | null;
  cron: string | null;
  time_zone: string;
}

function cronOf(expression: string, timeZone: string): Cron {
  return new Cron(expression, { timezone: timeZone, paused: true });
}

/** The first run at or after `after` (ms). */
export function firstRun(recurrence: Recurrence, after: number): number {
  if (recurrence.cron)
    return cronOf(recurrence.cron, recurrence.time_zone).nextRun(new Date(after))?.getTime() ?? Number.NaN;
  return after + (recurrence.every_s ?? 0) * 1000;
}

/** The run after one that was due at `dueAt`, never at or before `now`. */
export function nextRun(recurrence: Recurrence, dueAt: number, now: number): number {
  if (recurrence.cron) return firstRun(recurrence, Math.max(dueAt, now));
  const next = dueAt + (recurrence.every_s ?? 0) * 1000;
  return next > now ? next : now + (recurrence.every_s ?? 0) * 1000;
}

/** Checks a recurrence: a valid cron expression and zone, and no two runs closer than `minSeconds`. */
export function checkRecurrence(recurrence: Recurrence, minSeconds: number, now: number): Parsed<Recurrence> {
  if (recurrence.every_s !== null && recurrence.cron !== null)
    return { ok: false, error: "give either an interval (every) or a cron expression, not both" };
  if (recurrence.every_s !== null && recurrence.every_s < minSeconds)
    return {
      ok: false,
      error: `repeating every ${recurrence.every_s}s is too often: the minimum interval is ${minSeconds}s`,
    };
  if (recurrence.cron !== null) {
    let runs: Date[];
    try {
      runs = cronOf(recurrence.cron, recurrence.time_zone).nextRuns(2, new Date(now));
    } catch (error) {
      return { ok: false, error: `bad cron expression "${recurrence.cron}": ${(error as Error).message}` };
    }
    const [first, second] = runs;
    if (!first) return { ok: false, error: `the cron expression "${recurrence.cron}" never runs` };
    if (second && (second.getTime() - first.getTime()) / 1000 < minSeconds)
      return {
        ok: false,
        error: `the cron expression "${recurrence.cron}" runs too often: the minimum interval is ${minSeconds}s`,
      };
  }
  return { ok: true, value: recurrence };
}
