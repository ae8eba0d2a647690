import { DateTime } from "luxon";
import { dollars } from "../contracts/turn-detail.ts";
import type { UsageKind } from "../contracts/usage-meter.ts";
import type { Usage } from "./open-usage.ts";
import type { UsageGroup } from "./usage-store.ts";

// /usage's answer: one user's totals on this node for a period, per kind (coding sessions per
// project), per model, and where they stand against today's limits. Counts are exact here (the
// footer rounds); a cost is shown where every row of it was priced, else marked partial.

export const PERIODS = { today: 0, week: 6, month: 29 } as const;
export type Period = keyof typeof PERIODS;

export const KIND_NAMES: Record<UsageKind, string> = {
  turn: "assistant",
  worker: "plan workers",
  report: "plan reports",
  session: "coding sessions",
};

const exact = (n: number) => n.toLocaleString("en-US");

/** A group's counts without its kind, model and project: what is summed. */
type Sum = Omit<UsageGroup, "kind" | "model" | "project">;

const sum = (groups: readonly UsageGroup[]): Sum =>
  groups.reduce(
    (total, g) => ({
      calls: total.calls + g.calls,
      input: total.input + g.input,
      cachedInput: total.cachedInput + g.cachedInput,
      output: total.output + g.output,
      costUsd: total.costUsd + g.costUsd,
      unpriced: total.unpriced + g.unpriced,
    }),
    { calls: 0, input: 0, cachedInput: 0, output: 0, costUsd: 0, unpriced: 0 },
  );

function line(total: Sum): string {
  const cached = total.cachedInput > 0 ? ` (${exact(total.cachedInput)} cached)` : "";
  const cost =
    total.unpriced === total.calls
      ? ""
      : ` · ${dollars(total.costUsd)}${total.unpriced > 0 ? " (partly priced)" : ""}`;
  return `${exact(total.input)} in${cached} · ${exact(total.output)} out${cost} · ${total.calls} call${total.calls === 1 ? "" : "s"}`;
}

function by(groups: readonly UsageGroup[], key: (g: UsageGroup) => string): Array<[string, Sum]> {
  const map = new Map<string, UsageGroup[]>();
  for (const group of groups) map.set(key(group), [...(map.get(key(group)) ?? []), group]);
  return [...map.entries()].map(([name, members]) => [name, sum(members)]);
}

/** When a period starts: local midnight today, 6 or 29 days before. */
export function periodStart(usage: Usage, period: Period): number {
  const today = usage.limits.dayStart();
  return DateTime.fromMillis(today, { zone: usage.config.TIME_ZONE })
    .minus({ days: PERIODS[period] })
    .toMillis();
}

export function usageReport(usage: Usage, userId: string, period: Period): string {
  const since = periodStart(usage, period);
  const groups = usage.store.groups(userId, since);
  const { NODE_ID: node, TIME_ZONE: zone } = usage.config;
  const from = DateTime.fromMillis(since, { zone }).toFormat("yyyy-MM-dd");
  const title = `📊 Usage on ${node}, ${period === "today" ? "today" : `the last ${PERIODS[period] + 1} days`} (since ${from} 00:00 ${zone}), for ${userId}`;
  if (groups.length === 0) return `${title}\nNo model calls.${limitsLine(usage, userId)}`;
  const kinds = by(groups, (g) =>
    g.kind === "session" && g.project ? `${KIND_NAMES.session} · ${g.project}` : KIND_NAMES[g.kind],
  );
  const models = by(groups, (g) => g.model);
  const rows = (list: Array<[string, Sum]>) => {
    const width = Math.max(...list.map(([name]) => name.length));
    return list.map(([name, total]) => `  ${name.padEnd(width)}  ${line(total)}`);
  };
  return (
    [title, `Total: ${line(sum(groups))}`, "By kind:", ...rows(kinds), "By model:", ...rows(models)].join(
      "\n",
    ) + limitsLine(usage, userId)
  );
}

function limitsLine(usage: Usage, userId: string): string {
  const standings = usage.limits.daily(userId);
  if (usage.limits.lifted(userId)) return "\nToday's limits are lifted for this user.";
  if (standings.length === 0) return "";
  const parts = standings.map((s) => `${s.what} ${s.show(s.used)} of ${s.show(s.limit)}`);
  return `\nToday: ${parts.join(", ")}; resets ${usage.limits.resetText()}.`;
}
