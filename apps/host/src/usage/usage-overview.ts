import type { OverviewUsage } from "@phonework/protocol";
import { DateTime } from "luxon";
import type { Usage } from "./open-usage.ts";
import { KIND_NAMES } from "./usage-report.ts";

// The console's view of a user's usage on this host: the tokens and priced cost of each of the last
// 14 days (the host's time zone, oldest first, days with nothing as 0) and the last 30 days per kind.

const DAYS = 14;

export function usageOverview(usage: Usage, userId: string): OverviewUsage {
  const zone = usage.config.TIME_ZONE;
  const today = DateTime.fromMillis(usage.limits.dayStart(), { zone });
  const days = Array.from({ length: DAYS }, (_, i) => ({
    day: today.minus({ days: DAYS - 1 - i }).toFormat("yyyy-MM-dd"),
    tokens: 0,
    cost_usd: 0,
  }));
  const byDay = new Map(days.map((day) => [day.day, day]));
  for (const hour of usage.store.hourly(userId, today.minus({ days: DAYS - 1 }).toMillis())) {
    const day = byDay.get(DateTime.fromMillis(hour.hour, { zone }).toFormat("yyyy-MM-dd"));
    if (!day) continue;
    day.tokens += hour.tokens;
    day.cost_usd += hour.costUsd;
  }
  const kinds = new Map<string, OverviewUsage["kinds"][number]>();
  for (const group of usage.store.groups(userId, today.minus({ days: 29 }).toMillis())) {
    const name =
      group.kind === "session" && group.project
        ? `${KIND_NAMES.session} · ${group.project}`
        : KIND_NAMES[group.kind];
    const kind: OverviewUsage["kinds"][number] = kinds.get(name) ?? {
      kind: name.slice(0, 300),
      calls: 0,
      input: 0,
      cached_input: 0,
      output: 0,
    };
    kind.calls += group.calls;
    kind.input += group.input;
    kind.cached_input += group.cachedInput;
    kind.output += group.output;
    if (group.unpriced < group.calls) kind.cost_usd = (kind.cost_usd ?? 0) + group.costUsd;
    kinds.set(name, kind);
  }
  return { days, kinds: [...kinds.values()].slice(0, 20) };
}
