import type { OutgoingButton } from "../platform-adapter.ts";

// Replies go out as interactive cards (card JSON 2.0): Feishu renders markdown and code blocks
// there, and cards can be patched in place (every 2.0 card is shared, update_multi) for progress
// and after a button press. Schema 2.0 has no `action` container any more (a card with one is
// refused: ErrCode 200861, "unsupported tag action"), so a row of buttons is a column_set with one
// auto-width column per button, flowing onto the next line when the row is too wide.

/** The callback value a button carries; `d` is the shared layer's opaque data. */
export interface ButtonValue {
  d: string;
}

/** Feishu renders at most this many elements in a card; rows past it are left out (the text keeps the commands). */
export const MAX_CARD_ELEMENTS = 200;

function button(spec: OutgoingButton, index: number): Record<string, unknown> {
  const value: ButtonValue = { d: spec.data };
  return {
    tag: "button",
    text: { tag: "plain_text", content: spec.label.trim() || "·" },
    // The first button of a row is the one most answers take (Approve, the first node).
    type: index === 0 ? "primary" : "default",
    behaviors: [{ type: "callback", value }],
  };
}

function buttonRow(row: readonly OutgoingButton[]): Record<string, unknown> {
  return {
    tag: "column_set",
    flex_mode: "flow",
    horizontal_spacing: "8px",
    columns: row.map((spec, index) => ({
      tag: "column",
      width: "auto",
      elements: [button(spec, index)],
    })),
  };
}

/** Elements a row adds: the column_set, each column and each button. */
const rowSize = (row: readonly OutgoingButton[]) => 1 + row.length * 2;

/**
 * A markdown card, with rows of buttons under the text and, under those, the outcome of earlier
 * presses (e.g. "✓ Approve · <at id=…></at>").
 */
export function markdownCard(
  markdown: string,
  rows: readonly (readonly OutgoingButton[])[] = [],
  outcomes: readonly string[] = [],
): Record<string, unknown> {
  const elements: Array<Record<string, unknown>> = [{ tag: "markdown", content: markdown }];
  let budget = MAX_CARD_ELEMENTS - 1 - (outcomes.length > 0 ? 1 : 0);
  for (const row of rows) {
    if (row.length === 0) continue;
    if (rowSize(row) > budget) break;
    budget -= rowSize(row);
    elements.push(buttonRow(row));
  }
  if (outcomes.length > 0) elements.push({ tag: "markdown", content: outcomes.join("\n") });
  return { schema: "2.0", config: { update_multi: true }, body: { elements } };
}

/** The same text as a plain text message, for when a card is refused. */
export function textContent(text: string): Record<string, unknown> {
  return { text };
}
