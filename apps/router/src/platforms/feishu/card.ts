// Replies go out as interactive cards (card JSON 2.0) with one markdown element: Feishu renders
// markdown and code blocks there, and cards can be patched in place (update_multi) for progress.

export function markdownCard(markdown: string): Record<string, unknown> {
  return {
    schema: "2.0",
    config: { update_multi: true },
    body: { elements: [{ tag: "markdown", content: markdown }] },
  };
}

/** The same text as a plain text message, for when a card is refused. */
export function textContent(text: string): Record<string, unknown> {
  return { text };
}
