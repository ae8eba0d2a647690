// A turn's details, beside its status lines: each tool call, its result (clipped) and the turn's
// token usage. The router shows them under the turn's main message, inline, or not at all (the
// chat's /details); a host sends them only when the forward asked (`details`), so they cost
// nothing otherwise. Bounded here so no detail outgrows what a status line could carry today.

export type DetailKind = "tool" | "result" | "usage";

/** Where a turn's details go; absent when nobody shows them. */
export type DetailSink = (kind: DetailKind, text: string) => void;

/** The longest result shown, in characters ("…" marks the cut). */
export const RESULT_DETAIL_MAX = 1500;
/** The longest tool call line (name and arguments). */
export const TOOL_DETAIL_MAX = 200;

/** At most `max` characters, "…" at the cut; `oneLine` folds whitespace first. */
export function clipDetail(text: string, max: number, oneLine = false): string {
  const folded = oneLine ? text.replace(/\s+/g, " ").trim() : text.trim();
  if (folded.length <= max) return folded;
  const cut = folded.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** Argument names whose values are never shown (a token the user pasted, a password). */
const SECRET_KEY = /token|secret|password|passwd|api[_-]?key|auth|credential|cookie/i;

/** "shell: git status --short" — the tool's name and its arguments, short, secrets masked. */
export function toolCallDetail(name: string, args: unknown): string {
  const shown =
    args && typeof args === "object" && !Array.isArray(args)
      ? Object.entries(args as Record<string, unknown>)
          .map(([key, value]) => {
            if (SECRET_KEY.test(key)) return `${key}=***`;
            const text = typeof value === "string" ? value : JSON.stringify(value);
            return Object.keys(args as object).length === 1 ? text : `${key}=${text}`;
          })
          .join(" ")
      : JSON.stringify(args ?? "");
  return clipDetail(shown ? `${name}: ${shown}` : name, TOOL_DETAIL_MAX, true);
}

/** 1234 → "1.2k", 340 → "340", 2_500_000 → "2.5M". */
export function tokens(count: number): string {
  if (count < 1000) return String(count);
  const [value, unit] = count < 1_000_000 ? [count / 1000, "k"] : [count / 1_000_000, "M"];
  return `${value.toFixed(1).replace(/\.0$/, "")}${unit}`;
}

/** $0.0042 → "$0.004", $0.1234 → "$0.123", $12.345 → "$12.35". */
export const dollars = (usd: number): string => {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01 || usd === 0) return `$${Number(usd.toFixed(3))}`;
  return `$${Number(usd.toPrecision(1))}`;
};

/** "1.2k in · 340 out", with " · $0.004" where the cost is known. */
export const usageDetail = (usage: { input: number; output: number; costUsd?: number }): string =>
  `${tokens(usage.input)} in · ${tokens(usage.output)} out${usage.costUsd === undefined ? "" : ` · ${dollars(usage.costUsd)}`}`;
