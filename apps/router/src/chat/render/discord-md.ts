// Discord's markdown is close to CommonMark and shows bold, italic, code spans, fences, quotes,
// lists, links and headings #–### as written. This pass fixes only what Discord reads differently,
// outside code: mentions are neutralised (a zero-width space after the @ or <), so nothing an
// answer says can ping @everyone, @here, a user or a role (sends also carry allowed_mentions:
// {parse: []}); `||` (a spoiler on Discord) and a line's leading `-# ` (small text) are escaped;
// headings past ### become bold; images become links; ~~~ fences become ``` fences (Discord
// knows only backticks). Code is left exactly as written: there nothing renders or pings.

const ZWSP = "\u200b";
const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const CLOSING = /^\s*(`{3,}|~{3,})\s*$/;

/** Mentions outside code: `@everyone`, `@here`, `<@123>`, `<@!123>`, `<@&123>`, `<#123>`. */
function neutraliseMentions(text: string): string {
  return text.replace(/@(everyone|here)\b/gi, `@${ZWSP}$1`).replace(/<([@#])/g, `<${ZWSP}$1`);
}

/** Prose (no code in it). */
function renderProse(text: string): string {
  return neutraliseMentions(text)
    .replace(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, (_, alt: string, src: string) => `[${alt || src}](${src})`)
    .replace(/\|\|/g, "\\|\\|");
}

/** One line outside a fence: inline code spans kept as written, the rest rendered as prose. */
function renderLine(line: string): string {
  const heading = /^(\s{0,3})#{4,}\s+(.*?)\s*#*\s*$/.exec(line);
  let text = heading ? `${heading[1]}**${heading[2]}**` : line;
  if (/^\s*-#\s/.test(text)) text = text.replace("-#", "\\-#");
  let out = "";
  // A code span: a run of backticks, then anything up to the same run (CommonMark's rule).
  const span = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  let last = 0;
  for (let match = span.exec(text); match; match = span.exec(text)) {
    out += renderProse(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + renderProse(text.slice(last));
}

export function renderDiscordMd(markdown: string): string {
  const out: string[] = [];
  let fence: { marker: string; tilde: boolean } | undefined;
  for (const line of markdown.split("\n")) {
    if (fence) {
      const close = CLOSING.exec(line);
      if (close?.[1] && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length) {
        out.push(fence.tilde ? line.replace(/~+/, "```") : line);
        fence = undefined;
      } else out.push(line);
      continue;
    }
    const open = FENCE.exec(line);
    const marker = open?.[2];
    if (open && marker && !(marker.startsWith("`") && (open[3] ?? "").includes("`"))) {
      const tilde = marker.startsWith("~");
      fence = { marker, tilde };
      out.push(tilde ? `${open[1]}\`\`\`${open[3] ?? ""}` : line);
      continue;
    }
    out.push(renderLine(line));
  }
  // An unclosed fence runs to the end of the message on Discord too; a ~~~ one needs its ``` close.
  if (fence?.tilde) out.push("```");
  return out.join("\n");
}

/** The last-resort cut: every character that could start markup escaped, and no @ that can ping. */
export function discordLiteral(text: string): string {
  return text.replace(/[\\*_`~|>#[\]()<-]/g, "\\$&").replace(/@/g, `@${ZWSP}`);
}
