import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { TokenUsage, UsageMeter, UsageTag } from "../contracts/usage-meter.ts";
import { countedUsage } from "./counted-usage.ts";
import { costOf, priceTable } from "./model-prices.ts";
import { type LimitConfig, UsageLimits } from "./usage-limits.ts";
import { UsageStore } from "./usage-store.ts";

// The host's usage: the store in state.db, the prices, the limits, and the meter every model call
// and coding turn reports to. Opened with the base, as the assistant, the workers and the coding
// sessions all meter through it; its command and the retention sweep are usage-feature.ts.

export type UsageConfig = LimitConfig &
  Pick<HostConfig, "MODEL_PRICES" | "USAGE_RETENTION_DAYS" | "USAGE_FOOTER">;

export interface Usage {
  readonly meter: UsageMeter;
  readonly store: UsageStore;
  readonly limits: UsageLimits;
  readonly config: UsageConfig;
  readonly now: () => number;
  /** Deletes the rows older than USAGE_RETENTION_DAYS; returns how many. */
  prune(): number;
}

export interface UsageDeps {
  config: UsageConfig;
  db: SqliteDatabase;
  now: () => number;
  logger: Logger;
  /** Tells a user something in a chat (the 80% warning), through the outbox. */
  notify: (to: ChatOwner, text: string) => void;
}

const DAY_MS = 24 * 3600 * 1000;

export function openUsage(deps: UsageDeps): Usage {
  const { config, now } = deps;
  const logger = deps.logger.child({ component: "usage" });
  const store = new UsageStore(deps.db, config.NODE_ID);
  const limits = new UsageLimits(config, store, now);
  const price = priceTable(config.MODEL_PRICES ?? {});

  const spending = (tag: UsageTag) => ({
    day: store.spentBy(tag.userId, limits.dayStart()),
    ...(tag.planId ? { plan: store.spentOnPlan(tag.planId) } : {}),
  });

  const record = (tag: UsageTag, reported: TokenUsage): TokenUsage => {
    const { usage, suspicious } = countedUsage(reported);
    if (suspicious)
      logger.warn({ kind: tag.kind, model: usage.model }, "a usage block that is not a count; counted as 0");
    const counted = { ...usage, ...(usage.costUsd === undefined ? withCost(usage) : {}) };
    try {
      const before = spending(tag);
      store.add(now(), tag, counted);
      const told = limits.crossings(tag, before, spending(tag));
      if (!tag.isolated) for (const text of told) deps.notify(tag, text);
    } catch (error) {
      // Losing one row of accounting must not fail the user's turn.
      logger.error({ err: error, kind: tag.kind }, "could not record usage");
    }
    return counted;
  };
  const withCost = (usage: TokenUsage) => {
    const cost = costOf(usage, price(usage.model));
    return cost === undefined ? {} : { costUsd: cost };
  };

  return {
    meter: { record, refusal: (tag) => limits.refusal(tag) },
    store,
    limits,
    config,
    now,
    prune: () => store.prune(now() - config.USAGE_RETENTION_DAYS * DAY_MS, now()),
  };
}
