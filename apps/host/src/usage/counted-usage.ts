import type { TokenUsage } from "../contracts/usage-meter.ts";

// A usage block comes from outside (a provider, a proxy, a CLI's output): whatever it says, what is
// stored is a count. Not a number, negative, fractional or beyond any real call (a forged block, a
// provider bug) counts as 0, so one bad block cannot poison a day's totals or a limit.

/** More than any model reads or writes in one call (or a coding turn) today, by far. */
export const MAX_TOKENS_PER_CALL = 50_000_000;
/** Claude Code's own cost for one turn beyond this is not believed. */
export const MAX_COST_PER_CALL_USD = 1000;

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL
    ? Math.round(value)
    : 0;

export function countedUsage(usage: TokenUsage): { usage: TokenUsage; suspicious: boolean } {
  const input = count(usage.input);
  const output = count(usage.output);
  const cachedInput = Math.min(count(usage.cachedInput), input);
  const cost = usage.costUsd;
  const costOk =
    typeof cost === "number" && Number.isFinite(cost) && cost >= 0 && cost <= MAX_COST_PER_CALL_USD;
  const model =
    typeof usage.model === "string" && usage.model.trim() ? usage.model.trim().slice(0, 200) : "unknown";
  const suspicious =
    input !== usage.input ||
    output !== usage.output ||
    cachedInput !== usage.cachedInput ||
    (cost !== undefined && !costOk);
  return {
    usage: { model, input, cachedInput, output, ...(costOk ? { costUsd: cost } : {}) },
    suspicious,
  };
}
