// How a reply marks text as preformatted (command output, a terminal's screen): a fenced code
// block in the reply's Markdown. The router renders it per platform (Telegram <pre>, a Feishu code
// block, the console's <pre>) and splits a long one into parts that are each a whole block.

const longestBackticks = (text: string) =>
  Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));

/** A fenced block longer than any run of backticks in `text` (CommonMark), so the text cannot end it. */
export function codeBlock(text: string): string {
  const fence = "`".repeat(Math.max(3, longestBackticks(text) + 1));
  return `${fence}\n${text}\n${fence}`;
}

/** Inline code that holds any backticks `text` has. */
export function codeSpan(text: string): string {
  const ticks = "`".repeat(longestBackticks(text) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}
