import { PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { TokenUsage, UsageKind, UsageTag } from "../contracts/usage-meter.ts";

// model_usage in state.db: one row per model call (or coding turn), with whose it was and what it
// was for; usage_lifts: users whose daily limits an owner lifted, until when. Rows older than
// USAGE_RETENTION_DAYS are deleted (prune).

export const USAGE_MIGRATION = `
  CREATE TABLE model_usage (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    node TEXT NOT NULL,
    user_id TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    plan_id TEXT,
    project TEXT,
    input INTEGER NOT NULL,
    cached_input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cost_usd REAL
  );
  CREATE INDEX model_usage_user_at ON model_usage (user_id, at);
  CREATE INDEX model_usage_plan ON model_usage (plan_id) WHERE plan_id IS NOT NULL;
  CREATE INDEX model_usage_at ON model_usage (at);
  CREATE TABLE usage_lifts (
    user_id TEXT PRIMARY KEY,
    until INTEGER NOT NULL,
    lifted_by TEXT NOT NULL
  );`;

/** One group of rows summed: per kind, model and project. */
export interface UsageGroup {
  kind: UsageKind;
  model: string;
  project: string | null;
  calls: number;
  input: number;
  cachedInput: number;
  output: number;
  /** Summed over the priced rows; `unpriced` counts the others. */
  costUsd: number;
  unpriced: number;
}

/** Tokens (in + out) and the cost of the priced ones. */
export interface Spent {
  tokens: number;
  costUsd: number;
}

export class UsageStore {
  private readonly sql: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly nodeId: string,
  ) {
    this.sql = new PreparedStatements(db);
  }

  add(at: number, tag: UsageTag, usage: TokenUsage): void {
    this.sql
      .sql(
        `INSERT INTO model_usage (at, node, user_id, chat_id, platform, kind, model, plan_id, project, input, cached_input, output, cost_usd)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        at,
        this.nodeId,
        tag.userId,
        tag.chatId,
        tag.platform,
        tag.kind,
        usage.model,
        tag.planId ?? null,
        tag.project ?? null,
        usage.input,
        usage.cachedInput,
        usage.output,
        usage.costUsd ?? null,
      );
  }

  /** A user's usage since `since`, per kind, model and project. */
  groups(userId: string, since: number): UsageGroup[] {
    const rows = this.sql
      .sql(
        `SELECT kind, model, project, COUNT(*) AS calls, SUM(input) AS input, SUM(cached_input) AS cachedInput,
                SUM(output) AS output, COALESCE(SUM(cost_usd), 0) AS costUsd, SUM(cost_usd IS NULL) AS unpriced
         FROM model_usage WHERE user_id = ? AND at >= ?
         GROUP BY kind, model, project ORDER BY kind, model, project`,
      )
      .all(userId, since) as UsageGroup[];
    return rows;
  }

  /** A user's usage since `since`, per hour (epoch ms of the hour), for a per-day chart. */
  hourly(userId: string, since: number): Array<{ hour: number; tokens: number; costUsd: number }> {
    return this.sql
      .sql(
        `SELECT (at / 3600000) * 3600000 AS hour, SUM(input + output) AS tokens, COALESCE(SUM(cost_usd), 0) AS costUsd
         FROM model_usage WHERE user_id = ? AND at >= ? GROUP BY hour ORDER BY hour`,
      )
      .all(userId, since) as Array<{ hour: number; tokens: number; costUsd: number }>;
  }

  spentBy(userId: string, since: number): Spent {
    return this.sql
      .sql(
        `SELECT COALESCE(SUM(input + output), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS costUsd
         FROM model_usage WHERE user_id = ? AND at >= ?`,
      )
      .get(userId, since) as Spent;
  }

  spentOnPlan(planId: string): Spent {
    return this.sql
      .sql(
        `SELECT COALESCE(SUM(input + output), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS costUsd
         FROM model_usage WHERE plan_id = ?`,
      )
      .get(planId) as Spent;
  }

  /** Deletes the rows older than `before` and the lifts that ended; returns how many rows went. */
  prune(before: number, now: number): number {
    this.sql.sql("DELETE FROM usage_lifts WHERE until <= ?").run(now);
    return this.sql.sql("DELETE FROM model_usage WHERE at < ?").run(before).changes;
  }

  lift(userId: string, until: number, by: string): void {
    this.sql
      .sql(
        `INSERT INTO usage_lifts (user_id, until, lifted_by) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET until = excluded.until, lifted_by = excluded.lifted_by`,
      )
      .run(userId, until, by);
  }

  liftedUntil(userId: string): number | undefined {
    const row = this.sql.sql("SELECT until FROM usage_lifts WHERE user_id = ?").get(userId) as
      | { until: number }
      | undefined;
    return row?.until;
  }

  count(): number {
    return (this.sql.sql("SELECT COUNT(*) AS n FROM model_usage").get() as { n: number }).n;
  }
}
