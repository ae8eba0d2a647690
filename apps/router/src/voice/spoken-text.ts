// What of an answer is read aloud: its words without code and markdown, and only when it is short.
// An answer that is mostly code (a diff, a listing) is not spoken at all: a voice reading symbols
// helps no one. The length is checked before any regular expression runs, so a huge answer costs
// nothing.

/** Code blocks (fenced, closed or not) and inline code. */
const FENCED = /(```|~~~)[\s\S]*?(?:\1|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;

/** The answer's text as it would be spoken, or undefined when it is not to be spoken. */
export function spokenText(answer: string, maxChars: number): string | undefined {
  // Markdown and code can at most double a short answer's words; anything longer is not short.
  if (answer.length > maxChars * 2) return undefined;
  const withoutBlocks = answer.replace(FENCED, " ");
  const code = answer.length - withoutBlocks.replace(INLINE_CODE, "").length;
  if (code > answer.trim().length / 2) return undefined;
  const text = withoutBlocks
    .replace(INLINE_CODE, (span) => span.slice(1, -1))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1") // images: their alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1") // links: their words
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+(?=\S))/gm, "") // headings, quotes, bullets
    .replace(/(\*\*|__|~~)(.+?)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](\S(?:.*?\S)?)[*_](?![\w*])/g, "$1$2")
    .replace(/^\s*([-*_]\s*){3,}$/gm, "") // rules
    .replace(/<\/?[a-z][^>]*>/gi, "")
    .replace(/[ \t]+/g, " ")
    .replace(/\s*\n\s*/g, "\n")
    .trim();
  return text && text.length <= maxChars ? text : undefined;
}
