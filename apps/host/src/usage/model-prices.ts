import type { ModelPrice } from "../config/usage-config.ts";
import type { TokenUsage } from "../contracts/usage-meter.ts";

// What a model call costs: USD per million input, cached input and output tokens. The defaults
// are the providers' published list prices for a few well-known models, as last checked on
// DEFAULT_PRICES_AS_OF; prices change, so MODEL_PRICES in the config adds models or replaces these.
// A model with no price shows tokens only.

export const DEFAULT_PRICES_AS_OF = "2025-06";

export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": { input: 2.5, cached: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cached: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cached: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cached: 0.1, output: 1.6 },
  "o4-mini": { input: 1.1, cached: 0.275, output: 4.4 },
  "claude-sonnet-4": { input: 3, cached: 0.3, output: 15 },
  "claude-opus-4": { input: 15, cached: 1.5, output: 75 },
  "deepseek-chat": { input: 0.27, cached: 0.07, output: 1.1 },
};

export type PriceTable = (model: string) => ModelPrice | undefined;

/**
 * The price of a model: its exact name, else the longest listed name it starts with
 * ("gpt-4o-2024-08-06" is gpt-4o, "gpt-4o-mini-x" gpt-4o-mini), without a provider prefix.
 */
export function priceTable(overrides: Readonly<Record<string, ModelPrice>>): PriceTable {
  const table = new Map<string, ModelPrice>();
  for (const [name, price] of Object.entries({ ...DEFAULT_MODEL_PRICES, ...overrides }))
    table.set(name.toLowerCase(), price);
  const names = [...table.keys()].sort((a, b) => b.length - a.length);
  return (model) => {
    const name = model.toLowerCase().replace(/^.*\//, "");
    const exact = table.get(model.toLowerCase()) ?? table.get(name);
    if (exact) return exact;
    const prefix = names.find((listed) => name.startsWith(listed));
    return prefix ? table.get(prefix) : undefined;
  };
}

/** USD for one call; undefined without a price. Cached tokens are part of `input`. */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  const fresh = Math.max(0, usage.input - usage.cachedInput);
  return (
    (fresh * price.input + usage.cachedInput * (price.cached ?? price.input) + usage.output * price.output) /
    1e6
  );
}
