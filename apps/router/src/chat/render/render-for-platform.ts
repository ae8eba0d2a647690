// Turns an answer's markdown into the messages one platform gets: the source is split (so a code
// block is never cut, only re-fenced), each piece rendered to the platform's dialect, and every
// rendered message kept within the platform's limit, "[i/n]" header included.

import type { Capabilities, MarkdownDialect } from "../../platforms/platform-adapter.ts";
import { discordLiteral, renderDiscordMd } from "./discord-md.ts";
import { renderFeishuMd } from "./feishu-md.ts";
import { escapeHtml } from "./html-escape.ts";
import { splitMarkdown } from "./message-chunks.ts";
import { renderPlain } from "./plain.ts";
import { escapeMrkdwn, renderSlackMrkdwn } from "./slack-mrkdwn.ts";

/** How one dialect renders markdown. */
export interface Dialect {
  render(markdown: string): string;
  /** The text shown exactly as written, for the last-resort cut. */
  literal(text: string): string;
}

export type Dialects = Record<MarkdownDialect, Dialect>;

/**
 * The dialects that need no parser. Telegram's here shows the Markdown as written, escaped: safe,
 * and what a send gets before `loadDialects` brought in the real renderer.
 */
export const BASIC_DIALECTS: Dialects = {
  plain: { render: renderPlain, literal: renderPlain },
  "feishu-md": { render: renderFeishuMd, literal: renderFeishuMd },
  "telegram-html": { render: escapeHtml, literal: escapeHtml },
  "slack-mrkdwn": { render: renderSlackMrkdwn, literal: escapeMrkdwn },
  "discord-md": { render: renderDiscordMd, literal: discordLiteral },
};

/**
 * The dialects the given platforms need, loading a Markdown parser only for those that render
 * one (markdown-it costs a router without Telegram a few MiB of memory it never uses).
 */
export async function loadDialects(needed: Iterable<MarkdownDialect>): Promise<Dialects> {
  if (![...needed].includes("telegram-html")) return BASIC_DIALECTS;
  const { renderTelegramHtml } = await import("./telegram-html.ts");
  return { ...BASIC_DIALECTS, "telegram-html": { render: renderTelegramHtml, literal: escapeHtml } };
}

/** How often one piece is split smaller before it is cut as literal text. */
const MAX_RESPLITS = 6;
/** Below this a re-split leaves too little room beside re-fencing: the piece is cut as text instead. */
const MIN_RESPLIT = 24;
/** Below this a "[i/n]" header leaves too little room for text. */
const MIN_MESSAGE_LENGTH = 64;

/** Half a surrogate pair (text cut carelessly upstream): platforms refuse it as invalid UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export type RenderTarget = Pick<Capabilities, "markdown" | "maxMessageLength">;

/**
 * The messages to send for `markdown`, in order, each at most `maxMessageLength` UTF-16 code
 * units: one without a header when it fits, else pieces headed "[i/n]". None when nothing in it
 * would be visible.
 */
export function renderForPlatform(
  markdown: string,
  target: RenderTarget,
  dialects: Dialects = BASIC_DIALECTS,
): string[] {
  const wellFormed = markdown.replace(LONE_SURROGATE, "\ufffd");
  return renderPieces(wellFormed, target.maxMessageLength, dialects[target.markdown]);
}

/** `renderForPlatform` for any dialect: the messages for `markdown`, each at most `limit` long. */
export function renderPieces(markdown: string, limit: number, dialect: Dialect): string[] {
  if (limit < MIN_MESSAGE_LENGTH) throw new RangeError(`a message limit of ${limit} is too small`);
  const whole = dialect.render(markdown);
  if (whole.length <= limit) return whole.trim() === "" ? [] : [whole];
  // The header's width depends on the count of pieces, which depends on the room it leaves.
  for (let digits = String(Math.ceil(whole.length / limit)).length; ; digits++) {
    const room = limit - (2 * digits + 4); // "[" i "/" n "]\n"
    const pieces = splitMarkdown(markdown, room).flatMap((piece) => fit(piece, room, dialect, 0));
    if (pieces.length <= 1) return pieces;
    if (String(pieces.length).length <= digits) {
      return pieces.map((piece, index) => `[${index + 1}/${pieces.length}]\n${piece}`);
    }
  }
}

/** One source piece rendered, split smaller while it renders too long (escaping grows text). */
function fit(source: string, room: number, dialect: Dialect, resplits: number): string[] {
  const rendered = dialect.render(source);
  if (rendered.trim() === "") return [];
  if (rendered.length <= room) return [rendered];
  if (resplits < MAX_RESPLITS) {
    // Shrink the source by the overflow's ratio, with a margin for markup that does not scale.
    const smaller = Math.floor(((source.length * room) / rendered.length) * 0.9);
    if (smaller >= MIN_RESPLIT && smaller < source.length) {
      const parts = splitMarkdown(source, smaller);
      if (parts.length > 1) return parts.flatMap((part) => fit(part, room, dialect, resplits + 1));
    }
  }
  return cutLiteral(source, room, dialect);
}

/** The last resort: the piece shown as written (no markup to unbalance), cut between code points. */
function cutLiteral(source: string, room: number, dialect: Dialect): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const char of source) {
    const shown = dialect.literal(char);
    if (current.length + shown.length > room) {
      pieces.push(current);
      current = "";
    }
    current += shown;
  }
  pieces.push(current);
  return pieces.filter((piece) => piece.trim() !== "");
}
