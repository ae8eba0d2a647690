import { PreparedStatements, type SqliteDatabase } from "@phonework/runtime";

// What the routing LLM spent, in router.db: one row per call, with whose message it routed and the
// tokens its API reported (counted defensively: not a count, negative or absurd is 0). Rows older
// than USAGE_RETENTION_DAYS are deleted at start and once a day.

export const ROUTING_USAGE_MIGRATION = `
  CREATE TABLE routing_usage (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    user_id TEXT NOT NULL,
    model TEXT NOT NULL,
    input INTEGER NOT NULL,
    cached_input INTEGER NOT NULL,
    output INTEGER NOT NULL
  );
  CREATE INDEX routing_usage_user_at ON routing_usage (user_id, at);
  CREATE INDEX routing_usage_at ON routing_usage (at);`;

/** The `usage` block of a chat completion, as the API may (or may not) send it. */
export interface ApiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

const MAX_TOKENS_PER_CALL = 50_000_000;
const count = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL
    ? Math.round(value)
    : 0;
const DAY_MS = 24 * 3600 * 1000;

export class RoutingUsage {
  private readonly sql: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
  }

  record(userId: string, model: string, usage: ApiUsage): void {
    const input = count(usage.prompt_tokens);
    const cached = Math.min(count(usage.prompt_tokens_details?.cached_tokens), input);
    this.sql
      .sql(
        "INSERT INTO routing_usage (at, user_id, model, input, cached_input, output) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(this.now(), userId, model.slice(0, 200), input, cached, count(usage.completion_tokens));
  }

  /** A user's routing calls since `since`. */
  totals(
    userId: string,
    since: number,
  ): { calls: number; input: number; cachedInput: number; output: number } {
    return this.sql
      .sql(
        `SELECT COUNT(*) AS calls, COALESCE(SUM(input), 0) AS input, COALESCE(SUM(cached_input), 0) AS cachedInput,
                COALESCE(SUM(output), 0) AS output FROM routing_usage WHERE user_id = ? AND at >= ?`,
      )
      .get(userId, since) as { calls: number; input: number; cachedInput: number; output: number };
  }

  /** Deletes rows older than `days`; returns how many. */
  prune(days: number): number {
    return this.sql.sql("DELETE FROM routing_usage WHERE at < ?").run(this.now() - days * DAY_MS).changes;
  }

  /** Prunes now and once a day; the returned function stops it. */
  keep(days: number): () => void {
    this.prune(days);
    const timer = setInterval(() => {
      try {
        this.prune(days);
      } catch {
        // The database closed under a router that stopped: nothing to keep any more.
        clearInterval(timer);
      }
    }, DAY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
