import type { MessageEntity } from "grammy/types";

// parse_mode HTML, following Telegram's own parser (tdlib parse_html) closely enough for its errors:
// only the documented tags, properly nested, every one closed; `&lt;`, `&gt;`, `&amp;`, `&quot;`
// and numeric entities decoded, any other `&` kept as is. Offsets in errors are UTF-8 byte offsets.

export type Parsed = { text: string; entities: MessageEntity[] } | { error: string };

const TAGS = new Set([
  "a",
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "tg-emoji",
  "code",
  "pre",
  "blockquote",
]);

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

interface Open {
  tag: string;
  start: number;
  attributes: Record<string, string>;
}

const byteOffset = (source: string, index: number) => Buffer.byteLength(source.slice(0, index));

export function parseHtml(source: string): Parsed {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: Open[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    if (char === "&") {
      const entity = /^&(#x[0-9a-f]+|#\d+|[a-z]+);/i.exec(source.slice(i, i + 12));
      const decoded = entity?.[1] ? decodeEntity(entity[1]) : undefined;
      text += decoded ?? "&";
      i += decoded !== undefined && entity ? entity[0].length : 1;
      continue;
    }
    if (char !== "<") {
      text += char;
      i += 1;
      continue;
    }
    const at = byteOffset(source, i);
    const close = source.indexOf(">", i);
    if (source[i + 1] === "/") {
      if (close === -1) return { error: `Unclosed end tag at byte offset ${at}` };
      const name = source
        .slice(i + 2, close)
        .trim()
        .toLowerCase();
      const top = open.pop();
      if (!top) return { error: `Unexpected end tag at byte offset ${at}` };
      if (name !== top.tag) {
        return {
          error: `Unmatched end tag at byte offset ${at}, expected "</${top.tag}>", found "</${name}>"`,
        };
      }
      const entity = entityFor(top, text.length - top.start);
      if (entity) entities.push(entity);
      i = close + 1;
      continue;
    }
    const name = /^[^\s>]*/.exec(source.slice(i + 1))?.[0].toLowerCase() ?? "";
    const unclosed = { error: `Unclosed start tag at byte offset ${at}` };
    if (i + 1 + name.length >= source.length) return unclosed;
    if (!TAGS.has(name)) return { error: `Unsupported start tag "${name}" at byte offset ${at}` };
    if (close === -1) return unclosed;
    const attributes = parseAttributes(source.slice(i + 1 + name.length, close));
    if (name === "span" && attributes.class !== "tg-spoiler") {
      return { error: `Tag "span" must have class "tg-spoiler" at byte offset ${at}` };
    }
    open.push({ tag: name, start: text.length, attributes });
    i = close + 1;
  }
  const unclosed = open.at(-1);
  if (unclosed) return { error: `Can't find end tag corresponding to start tag "${unclosed.tag}"` };
  return { text, entities: entities.sort((a, b) => a.offset - b.offset) };
}

function decodeEntity(name: string): string | undefined {
  if (name.startsWith("#x") || name.startsWith("#X"))
    return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
  if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
  return NAMED[name.toLowerCase()];
}

function parseAttributes(raw: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of raw.matchAll(/([\w-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+)))?/g)) {
    const name = match[1];
    if (name) attributes[name.toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? "";
  }
  return attributes;
}

function entityFor(open: Open, length: number): MessageEntity | undefined {
  if (length === 0) return undefined;
  const at = { offset: open.start, length };
  switch (open.tag) {
    case "b":
    case "strong":
      return { type: "bold", ...at };
    case "i":
    case "em":
      return { type: "italic", ...at };
    case "u":
    case "ins":
      return { type: "underline", ...at };
    case "s":
    case "strike":
    case "del":
      return { type: "strikethrough", ...at };
    case "span":
    case "tg-spoiler":
      return { type: "spoiler", ...at };
    case "code":
      return { type: "code", ...at };
    case "pre":
      return { type: "pre", ...at };
    case "blockquote":
      return { type: "expandable" in open.attributes ? "expandable_blockquote" : "blockquote", ...at };
    case "tg-emoji":
      return { type: "custom_emoji", custom_emoji_id: open.attributes["emoji-id"] ?? "", ...at };
    default:
      return { type: "text_link", url: open.attributes.href ?? "", ...at };
  }
}
