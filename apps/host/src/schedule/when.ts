import { DateTime } from "luxon";

// The times users and the model write: a delay ("10m", "1h30m", "90 seconds") or a date
// ("2026-12-01T09:00" in the user's zone, or with an explicit offset). Errors say what was wrong.

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const UNIT =
  /(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)(?=\d|\s|$)/gy;

/** "10m", "1h30m", "2 hours", "45s" → seconds; undefined if it is not a delay. */
export function parseDelaySeconds(text: string): number | undefined {
  const input = text.trim().toLowerCase();
  if (!input) return undefined;
  let total = 0;
  let end = 0;
  UNIT.lastIndex = 0;
  for (let match = UNIT.exec(input); match; match = UNIT.exec(input)) {
    total += Number(match[1]) * (UNIT_SECONDS[(match[2] ?? "s")[0] as string] ?? 1);
    end = UNIT.lastIndex;
    while (input[UNIT.lastIndex] === " ") UNIT.lastIndex++;
  }
  return end === input.length && total > 0 ? total : undefined;
}

/** A delay from `now`, or an absolute date/time (in `timeZone` unless it carries an offset). */
export function parseWhen(text: string, now: number, timeZone: string): Parsed<number> {
  const input = text.trim();
  if (!input)
    return { ok: false, error: "no time given: use a delay like 10m or a date like 2026-12-01T09:00" };
  const delay = parseDelaySeconds(input);
  let at: number;
  if (delay !== undefined) at = now + delay * 1000;
  else {
    const date = DateTime.fromISO(input.replace(" ", "T"), { zone: timeZone });
    if (!date.isValid)
      return {
        ok: false,
        error: `cannot read the time "${input}": use a delay like 10m or 2h30m, or a date like 2026-12-01T09:00 (optionally with an offset, +08:00)`,
      };
    at = date.toMillis();
  }
  if (at <= now)
    return {
      ok: false,
      error: `${formatTime(at, timeZone)} is in the past (it is now ${formatTime(now, timeZone)})`,
    };
  return { ok: true, value: at };
}

/** "2026-12-01 09:00 (Asia/Shanghai)": how a time is shown to the user. */
export function formatTime(at: number, timeZone: string): string {
  return `${DateTime.fromMillis(at, { zone: timeZone }).toFormat("yyyy-MM-dd HH:mm")} (${timeZone})`;
}
