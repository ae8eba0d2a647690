import type { MessageEntity } from "grammy/types";
import type { Parsed } from "./html.ts";

// parse_mode MarkdownV2, after Telegram's rules: every reserved character outside an entity must be
// escaped with `\`, inside code and pre only ` and \ are special, and every entity must be closed.
// Simplified: a leading `>` (blockquote) is dropped without making an entity.

const RESERVED = new Set("_*[]()~`>#+-=|{}.!");

type Kind = "bold" | "italic" | "underline" | "strikethrough" | "spoiler" | "code" | "pre" | "text_link";

const NAMES: Record<Kind, string> = {
  bold: "Bold",
  italic: "Italic",
  underline: "Underline",
  strikethrough: "Strikethrough",
  spoiler: "Spoiler",
  code: "Code",
  pre: "Pre",
  text_link: "TextUrl",
};

interface Open {
  kind: Kind;
  start: number;
  byte: number;
  language?: string;
}

export function parseMarkdownV2(source: string): Parsed {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: Open[] = [];
  const byteAt = (index: number) => Buffer.byteLength(source.slice(0, index));
  const close = (top: Open, extra: Partial<MessageEntity> = {}) => {
    open.pop();
    const length = text.length - top.start;
    if (length === 0) return;
    const base = { offset: top.start, length };
    if (top.kind === "pre")
      entities.push({ type: "pre", ...base, ...(top.language ? { language: top.language } : {}) });
    else if (top.kind === "text_link")
      entities.push({ type: "text_link", url: "", ...base, ...extra } as MessageEntity);
    else entities.push({ type: top.kind, ...base });
  };
  const toggle = (kind: Kind, at: number) => {
    const top = open.at(-1);
    if (top?.kind === kind) close(top);
    else open.push({ kind, start: text.length, byte: byteAt(at) });
  };

  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    const next = source[i + 1];
    if (char === "\\" && next !== undefined && next.charCodeAt(0) >= 1 && next.charCodeAt(0) <= 126) {
      text += next;
      i += 2;
      continue;
    }
    const top = open.at(-1);
    if (top?.kind === "code" || top?.kind === "pre") {
      const fence = top.kind === "pre" ? "```" : "`";
      if (source.startsWith(fence, i)) {
        close(top);
        i += fence.length;
      } else {
        text += char;
        i += 1;
      }
      continue;
    }
    if (!RESERVED.has(char)) {
      text += char;
      i += 1;
      continue;
    }
    if (char === "*") toggle("bold", i);
    else if (char === "_" && next === "_") {
      toggle("underline", i);
      i += 1;
    } else if (char === "_") toggle("italic", i);
    else if (char === "~") toggle("strikethrough", i);
    else if (char === "|" && next === "|") {
      toggle("spoiler", i);
      i += 1;
    } else if (char === "`" && source.startsWith("```", i)) {
      const newline = source.indexOf("\n", i + 3);
      const language = newline === -1 ? "" : source.slice(i + 3, newline).trim();
      open.push({ kind: "pre", start: text.length, byte: byteAt(i), language });
      i = newline === -1 ? i + 2 : newline;
    } else if (char === "`") toggle("code", i);
    else if (char === "[") open.push({ kind: "text_link", start: text.length, byte: byteAt(i) });
    else if (char === "]" && top?.kind === "text_link" && next === "(") {
      let end = i + 2;
      while (end < source.length && source[end] !== ")") end += source[end] === "\\" ? 2 : 1;
      if (end >= source.length) return { error: `Can't find end of a URL at byte offset ${byteAt(i + 2)}` };
      close(top, { url: source.slice(i + 2, end).replace(/\\(.)/g, "$1") });
      i = end;
    } else if (char === ">" && (i === 0 || source[i - 1] === "\n")) {
      // blockquote marker: dropped
    } else {
      return { error: `Character '${char}' is reserved and must be escaped with the preceding '\\'` };
    }
    i += 1;
  }
  const unclosed = open.at(-1);
  if (unclosed)
    return { error: `Can't find end of ${NAMES[unclosed.kind]} entity at byte offset ${unclosed.byte}` };
  return { text, entities: entities.sort((a, b) => a.offset - b.offset) };
}
