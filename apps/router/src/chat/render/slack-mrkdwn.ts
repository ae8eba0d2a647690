// Markdown → Slack's mrkdwn. Slack renders its own small dialect (*bold*, _italic_, ~strike~,
// `code`, ``` blocks, <url|text> links, > quotes) and reads `<…>` as links and mentions, so `&`, `<`
// and `>` are escaped as entities everywhere — in code too: Slack shows entities decoded inside code
// as well, and an unescaped `<!channel>` in a code block would still be a mention. Code (blocks and
// spans) is kept as written otherwise; outside it, CommonMark's emphasis, links, headings and lists
// become their mrkdwn forms. Line-based rather than a full parser: mrkdwn has no nesting to get
// wrong, and an odd construct shows as written, never broken.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Text Slack shows as written: `&`, `<` and `>` as entities. */
export const escapeMrkdwn = (text: string): string =>
  text.replace(/[&<>]/g, (char) => ENTITIES[char] ?? char);

const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;
const SAFE_URL = /^(https?:\/\/|mailto:)/i;
// Placeholders outside anything a user types: stand-ins while the inline rules run.
const HOLD = "\u{F0000}";
const BOLD = "\u{F0001}";

/** A link's target inside `<…|…>`: `|` and `>` would end it early. */
const linkTarget = (url: string) => url.replace(/\|/g, "%7C").replace(/>/g, "%3E");

/** One line's inline markdown (outside code spans), already escaped, as mrkdwn. */
function inlineText(escaped: string, held: string[]): string {
  const hold = (text: string) => `${HOLD}${held.push(text) - 1}${HOLD}`;
  return (
    escaped
      // Images and links whose target is safe: <url|text>; anything else shows as written.
      .replace(/!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^)]*")?\)/g, (whole, text: string, url: string) => {
        if (!SAFE_URL.test(url)) return whole;
        const label = text.trim() === "" ? "" : `|${emphasis(text)}`;
        return hold(`<${linkTarget(url)}${label}>`);
      })
      // Autolinks (<https://…>, escaped by now).
      .replace(/&lt;((?:https?:\/\/|mailto:)[^\s&]+)&gt;/gi, (_whole, url: string) =>
        hold(`<${linkTarget(url)}>`),
      )
      .replace(/^.*$/, (rest) => emphasis(rest))
  );
}

/** **bold** and __bold__ → *bold*, *italic* → _italic_, ~~strike~~ → ~strike~. */
function emphasis(text: string): string {
  return text
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![\w*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])/g, "_$1_")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~")
    .replaceAll(BOLD, "*");
}

/** A line outside code blocks: code spans kept (escaped), the rest converted. */
function line(text: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
  if (heading) return `*${spans(heading[1] ?? "").replace(/^\*(.*)\*$/, "$1")}*`;
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(text)) return "———";
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
  if (bullet) return `${bullet[1] ?? ""}• ${spans(bullet[2] ?? "")}`;
  // A quote's ">" stays a ">": at the start of a line it is Slack's quote, never part of a link.
  const quote = /^\s{0,3}>\s?(.*)$/.exec(text);
  if (quote) return `> ${spans(quote[1] ?? "")}`;
  return spans(text);
}

/** Code spans as written (escaped, one backtick each side); the text around them converted. */
function spans(text: string): string {
  const held: string[] = [];
  let out = "";
  let rest = text;
  for (;;) {
    const span = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.exec(rest);
    if (!span) break;
    out += inlineText(escapeMrkdwn(rest.slice(0, span.index)), held);
    const code = (span[2] ?? "").replace(/`/g, "ˋ");
    out += code.trim() === "" ? escapeMrkdwn(span[0]) : `\`${escapeMrkdwn(code)}\``;
    rest = rest.slice(span.index + span[0].length);
  }
  out += inlineText(escapeMrkdwn(rest), held);
  return out.replace(
    new RegExp(`${HOLD}(\\d+)${HOLD}`, "g"),
    (_m, index: string) => held[Number(index)] ?? "",
  );
}

/** Markdown as mrkdwn; "" when nothing in it would be visible. */
export function renderSlackMrkdwn(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    const marker = open?.[1];
    if (!marker || (marker.startsWith("`") && (open?.[2] ?? "").includes("`"))) {
      out.push(line(lines[i] ?? ""));
      continue;
    }
    const body: string[] = [];
    let j = i + 1;
    const closes = (text: string) => {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(text)?.[1];
      return close !== undefined && close[0] === marker[0] && close.length >= marker.length;
    };
    while (j < lines.length && !closes(lines[j] ?? "")) body.push(lines[j++] ?? "");
    i = j; // past the closing fence (or the end: an unclosed block is closed here)
    // Slack shows an info string as code, so the language is left out; backticks inside are not
    // Slack's to end the block early.
    const code = body.join("\n").replace(/```/g, "ˋˋˋ");
    if (code.trim() !== "") out.push(`\`\`\`\n${escapeMrkdwn(code)}\n\`\`\``);
  }
  const text = out.join("\n");
  return text.trim() === "" ? "" : text;
}
