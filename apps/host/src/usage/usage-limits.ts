import { DateTime } from "luxon";
import type { HostConfig } from "../config/host-config.ts";
import { dollars, tokens } from "../contracts/turn-detail.ts";
import type { UsageTag } from "../contracts/usage-meter.ts";
import type { Spent, UsageStore } from "./usage-store.ts";

// The limits: a user's tokens and cost per day on this host (the day of TIME_ZONE), and a plan's
// tokens. At 100% new assistant turns and plan workers are refused with a sentence saying when
// the day resets; coding sessions are only warned. An owner's /usage lift sets a user free of
// them until the same time tomorrow.

export type LimitConfig = Pick<
  HostConfig,
  "NODE_ID" | "TIME_ZONE" | "USER_DAILY_TOKEN_LIMIT" | "USER_DAILY_COST_LIMIT" | "PLAN_TOKEN_LIMIT"
>;

/** Where a spending stands against one limit. */
interface Standing {
  what: string;
  used: number;
  limit: number;
  show: (n: number) => string;
}

export class UsageLimits {
  constructor(
    private readonly config: LimitConfig,
    private readonly store: UsageStore,
    private readonly now: () => number,
  ) {}

  dayStart(at = this.now()): number {
    return DateTime.fromMillis(at, { zone: this.config.TIME_ZONE }).startOf("day").toMillis();
  }

  /** When today's limits reset, as the user reads it ("00:00 tomorrow (Europe/Berlin)"). */
  resetText(at = this.now()): string {
    const reset = DateTime.fromMillis(this.dayStart(at), { zone: this.config.TIME_ZONE }).plus({ days: 1 });
    return `${reset.toFormat("yyyy-MM-dd HH:mm")} (${this.config.TIME_ZONE})`;
  }

  lifted(userId: string): boolean {
    return (this.store.liftedUntil(userId) ?? 0) > this.now();
  }

  /** The user's daily limits with today's spending; none when unset or lifted. */
  daily(userId: string, spent = this.store.spentBy(userId, this.dayStart())): Standing[] {
    if (this.lifted(userId)) return [];
    const { USER_DAILY_TOKEN_LIMIT: tokenLimit, USER_DAILY_COST_LIMIT: costLimit } = this.config;
    return [
      ...(tokenLimit
        ? [{ what: "daily token limit", used: spent.tokens, limit: tokenLimit, show: tokens }]
        : []),
      ...(costLimit
        ? [{ what: "daily cost limit", used: spent.costUsd, limit: costLimit, show: dollars }]
        : []),
    ];
  }

  plan(userId: string, planId: string | undefined, spent?: Spent): Standing[] {
    const limit = this.config.PLAN_TOKEN_LIMIT;
    if (!planId || !limit || this.lifted(userId)) return [];
    return [
      {
        what: `token limit of plan ${planId}`,
        used: (spent ?? this.store.spentOnPlan(planId)).tokens,
        limit,
        show: tokens,
      },
    ];
  }

  /** Why a model call for `tag` may not be made now; coding sessions are never refused. */
  refusal(tag: UsageTag): string | undefined {
    if (tag.kind === "session") return undefined;
    const plan = this.plan(tag.userId, tag.planId).find((s) => s.used >= s.limit);
    if (plan)
      return `Plan ${tag.planId} reached its token limit on ${this.config.NODE_ID} (${plan.show(plan.used)} of ${plan.show(plan.limit)}, PLAN_TOKEN_LIMIT): its workers are stopped.`;
    const day = this.daily(tag.userId).find((s) => s.used >= s.limit);
    if (!day) return undefined;
    return (
      `You reached your ${day.what} on ${this.config.NODE_ID} (${day.show(day.used)} of ${day.show(day.limit)}): ` +
      `new assistant turns and plan workers are refused until it resets at ${this.resetText()}. /stop and commands still work.`
    );
  }

  /**
   * What to tell the user after a call moved a spending from `before` to `after`: crossing 80% of
   * a limit once, and reaching it (a coding session keeps running, but the user should know).
   */
  crossings(
    tag: UsageTag,
    before: { day: Spent; plan?: Spent },
    after: { day: Spent; plan?: Spent },
  ): string[] {
    const pairs = [
      ...zip(this.daily(tag.userId, before.day), this.daily(tag.userId, after.day)),
      ...(before.plan && after.plan
        ? zip(this.plan(tag.userId, tag.planId, before.plan), this.plan(tag.userId, tag.planId, after.plan))
        : []),
    ];
    return pairs.flatMap(([was, now]) => {
      const where = `${now.what} on ${this.config.NODE_ID}`;
      if (was.used < now.limit && now.used >= now.limit)
        return tag.kind === "session"
          ? [
              `⚠️ You reached your ${where} (${now.show(now.limit)}); this coding session keeps running, but new assistant turns and plan workers are refused until ${this.resetText()}.`,
            ]
          : [];
      if (was.used < 0.8 * now.limit && now.used >= 0.8 * now.limit)
        return [`⚠️ You have used ${now.show(now.used)} of your ${where} (${now.show(now.limit)}), over 80%.`];
      return [];
    });
  }
}

const zip = (a: Standing[], b: Standing[]): Array<[Standing, Standing]> =>
  a.flatMap((was, i) => (b[i] ? [[was, b[i]] as [Standing, Standing]] : []));
