import type { TokenUsage } from "../contracts/usage-meter.ts";

// What a coding CLI says a turn spent. Claude Code: the final stream-json `result` line's `usage`
// (its input_tokens exclude the cache reads and writes, added here so input counts all of it),
// `total_cost_usd` and `modelUsage` (keyed by model). Codex: each `thread/tokenUsage/updated`
// notification's `last` (one model call), summed over the turn. Anything not a number counts 0
// here; usage/ checks the counts again before storing them.

type Loose = Record<string, unknown>;
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const obj = (value: unknown): Loose => (value && typeof value === "object" ? (value as Loose) : {});

/** A `result` line's usage; undefined when it has none. */
export function claudeResultUsage(line: Loose): TokenUsage | undefined {
  if (!line.usage || typeof line.usage !== "object") return undefined;
  const usage = obj(line.usage);
  const cacheRead = num(usage.cache_read_input_tokens);
  const models = Object.keys(obj(line.modelUsage));
  const cost = line.total_cost_usd;
  return {
    model: models[0] ?? "claude",
    input: num(usage.input_tokens) + cacheRead + num(usage.cache_creation_input_tokens),
    cachedInput: cacheRead,
    output: num(usage.output_tokens),
    ...(typeof cost === "number" ? { costUsd: cost } : {}),
  };
}

/** Sums a Codex turn's token counts, one notification at a time. */
export class CodexTurnUsage {
  private input = 0;
  private cachedInput = 0;
  private output = 0;
  private reported = false;

  add(params: Loose): void {
    const last = obj(obj(params.tokenUsage).last);
    this.input += num(last.inputTokens);
    this.cachedInput += num(last.cachedInputTokens);
    this.output += num(last.outputTokens);
    this.reported = true;
  }

  total(model: string): TokenUsage | undefined {
    if (!this.reported) return undefined;
    return { model, input: this.input, cachedInput: this.cachedInput, output: this.output };
  }
}
