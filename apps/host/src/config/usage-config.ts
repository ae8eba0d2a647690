import { z } from "zod";

// The usage keys, spread into the host's: what model calls cost (MODEL_PRICES adds to or replaces
// the dated defaults in usage/model-prices.ts), how long usage is kept, the footer under answers
// and the limits. A limit left unset is no limit.

const ModelPrice = z.object(
  {
    input: z.number({ error: "input must be a number (USD per million tokens)" }).nonnegative().max(10_000),
    cached: z
      .number({ error: "cached must be a number (USD per million tokens)" })
      .nonnegative()
      .max(10_000)
      .optional(),
    output: z.number({ error: "output must be a number (USD per million tokens)" }).nonnegative().max(10_000),
  },
  { error: "must be { input, cached, output } in USD per million tokens" },
);
export type ModelPrice = z.infer<typeof ModelPrice>;

/** A mapping (YAML), or the same as JSON in one environment variable. */
const modelPrices = z
  .preprocess(
    (value) => {
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value);
      } catch {
        return value; // refused below, with the shape it should have
      }
    },
    z.record(z.string().min(1).max(200), ModelPrice, {
      error:
        'must map model names to { input, cached, output } (USD per million tokens), e.g. {"gpt-4o": {"input": 2.5, "cached": 1.25, "output": 10}}',
    }),
  )
  .optional();

const optionalLimit = (what: string) =>
  z.coerce
    .number({ error: `must be ${what}` })
    .positive(`must be ${what} greater than 0`)
    .optional();

export const usageFields = {
  MODEL_PRICES: modelPrices,
  /** Usage rows older than this are deleted (at start and every few hours). */
  USAGE_RETENTION_DAYS: z.coerce
    .number({ error: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(3650, "must be at most 3650")
    .default(90),
  /** A line "1.2k in · 340 out · $0.004" under each answer of the assistant. */
  USAGE_FOOTER: z.enum(["on", "off"], { error: "must be on or off" }).default("off"),
  /** Tokens (in + out) one user's assistant turns and workers may spend on this host per day. */
  USER_DAILY_TOKEN_LIMIT: optionalLimit("a number of tokens").pipe(
    z.number().int("must be a whole number of tokens").optional(),
  ),
  /** USD one user's model calls may cost on this host per day (priced models only). */
  USER_DAILY_COST_LIMIT: optionalLimit("an amount in USD"),
  /** Tokens one plan's workers and report may spend on this host. */
  PLAN_TOKEN_LIMIT: optionalLimit("a number of tokens").pipe(
    z.number().int("must be a whole number of tokens").optional(),
  ),
};
