// Slack's message text as the shared layer reads it. Slack escapes `&`, `<` and `>` as entities and
// writes mentions, channels and links in angle brackets (`<@U123>`, `<#C1|general>`,
// `<https://x|label>`); a host's assistant gets plain text: the bot's own mention removed, others
// as @id / #name, links as their label and URL.

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">" };

function controlSequence(inner: string, botUserId: string | undefined): string {
  const [target = "", label] = inner.split("|", 2);
  if (target.startsWith("@")) {
    const id = target.slice(1);
    return botUserId && id === botUserId ? "" : `@${label ?? id}`;
  }
  if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
  if (target.startsWith("!")) return `@${label ?? target.slice(1).split("^")[0]}`;
  if (label && label !== target && label !== target.replace(/^mailto:/, "")) return `${label} (${target})`;
  return target.replace(/^mailto:/, "");
}

/** The text without the bot's mention (anywhere), unescaped, trimmed. */
export function plainText(text: string, botUserId: string | undefined): string {
  return text
    .replace(/<([^<>]*)>/g, (_match, inner: string) => controlSequence(inner, botUserId))
    .replace(/&(amp|lt|gt);/g, (entity) => ENTITIES[entity] ?? entity)
    .trim();
}

/** Whether the text mentions the bot. */
export const mentions = (text: string, botUserId: string | undefined): boolean =>
  botUserId !== undefined && new RegExp(`<@${botUserId}(\\|[^>]*)?>`).test(text);
