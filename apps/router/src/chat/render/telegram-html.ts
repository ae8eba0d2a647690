// Markdown → Telegram's HTML parse mode. markdown-it parses; this file writes only the tags
// Telegram accepts, escapes every other character, and never leaves a tag open or misnested.
//
// A real CommonMark parser rather than regexes, because that is where hand-written converters
// break: emphasis needs flanking rules (snake_case_name and `a * b * c` stay text), code spans and
// fences must win over everything inside them, and backslash escapes must be honoured.
import MarkdownIt, { type Token } from "markdown-it";
import { escapeAttribute, escapeHtml } from "./html-escape.ts";

/** Schemes a link may use; anything else (javascript:, data:, file:) stays visible text. */
const SAFE_URL = /^(https?|tg|mailto):/i;

/** Block nesting (quotes, lists) markdown-it follows; past it, it drops the rest of the text. */
const MAX_NESTING = 50;

// Built once: the parser is configuration only, parse() keeps no state between calls.
const parser = new MarkdownIt("default", {
  html: false,
  linkify: false,
  typographer: false,
  maxNesting: MAX_NESTING,
})
  // A reference definition ("[x]: http://…") is invisible when rendered, and a split can part it
  // from its use: shown as written, it is never lost.
  .disable(["reference"]);
parser.validateLink = (url) => SAFE_URL.test(url.trim());

/** A language name safe inside class="language-…". */
const LANGUAGE = /^[\w#+.-]{1,32}$/;

interface OpenTag {
  tag: string;
  /** The output's length and the breaks owed before the tag was opened, to take it back. */
  before: number;
  owed: string;
  /** Where the tag's content starts in the output. */
  content: number;
  /** Not written, because the same tag is already open (bold in a heading, a quote in a quote). */
  skipped: boolean;
}

/** Walks markdown-it's tokens once, writing Telegram HTML. */
class TelegramWriter {
  private out = "";
  /** Line breaks owed before the next thing written: owed, not written, so none trail a block. */
  private owed = "";
  private visible = false;
  private readonly tags: OpenTag[] = [];
  private readonly lists: { ordered: boolean }[] = [];
  private cells = 0;

  result(): string {
    return this.visible ? this.out : "";
  }

  blocks(tokens: Token[]): void {
    for (const token of tokens) {
      switch (token.type) {
        case "inline":
          this.inline(token.children ?? []);
          break;
        case "paragraph_open":
          this.flush();
          break;
        case "paragraph_close":
          this.owe(token.hidden ? "\n" : "\n\n");
          break;
        case "heading_open":
          this.open("b");
          break;
        case "blockquote_open":
          this.open("blockquote");
          break;
        case "heading_close":
        case "blockquote_close":
          this.close();
          this.owe("\n\n");
          break;
        case "bullet_list_open":
        case "ordered_list_open":
          this.lists.push({ ordered: token.type === "ordered_list_open" });
          break;
        case "bullet_list_close":
        case "ordered_list_close":
          this.lists.pop();
          this.owe(this.lists.length > 0 ? "\n" : "\n\n");
          break;
        case "list_item_open":
          this.listMarker(token);
          break;
        case "list_item_close":
        case "tr_close":
          this.owe("\n");
          break;
        case "fence":
        case "code_block":
          this.codeBlock(token);
          this.owe("\n\n");
          break;
        case "hr":
          this.text("———");
          this.owe("\n\n");
          break;
        case "tr_open":
          this.cells = 0;
          break;
        case "th_open":
        case "td_open":
          if (this.cells++ > 0) this.text(" | ");
          break;
        case "table_close":
          this.owe("\n\n");
          break;
      }
    }
  }

  private inline(tokens: Token[]): void {
    for (const token of tokens) {
      switch (token.type) {
        case "text":
          this.text(token.content);
          break;
        case "softbreak":
        case "hardbreak":
          this.text("\n");
          break;
        case "code_inline":
          // Telegram lets no entity contain code but bold and the like: inside a link it is text.
          if (this.isOpen("a")) this.text(token.content);
          else this.wrap("code", token.content);
          break;
        case "strong_open":
          this.open("b");
          break;
        case "em_open":
          this.open("i");
          break;
        case "s_open":
          this.open("s");
          break;
        case "link_open":
          this.link(String(token.attrGet("href") ?? ""));
          break;
        case "strong_close":
        case "em_close":
        case "s_close":
        case "link_close":
          this.close();
          break;
        case "image":
          this.image(token);
          break;
        default:
          // Nothing else is enabled; should a token appear, its text shows rather than vanishes.
          this.text(token.content);
      }
    }
  }

  private listMarker(token: Token): void {
    const depth = this.lists.length;
    const ordered = this.lists.at(-1)?.ordered ?? false;
    this.text(`${"  ".repeat(Math.max(depth - 1, 0))}${ordered ? `${token.info}${token.markup}` : "•"} `);
  }

  private codeBlock(token: Token): void {
    const body = token.content.replace(/\n$/, "");
    if (body === "") return;
    const language = token.info.trim().split(/\s+/)[0] ?? "";
    this.flush();
    this.out += LANGUAGE.test(language)
      ? `<pre><code class="language-${language}">${escapeHtml(body)}</code></pre>`
      : `<pre>${escapeHtml(body)}</pre>`;
    if (body.trim() !== "") this.visible = true;
  }

  private link(href: string): void {
    if (!SAFE_URL.test(href.trim()) || this.isOpen("a")) {
      this.tags.push({ tag: "a", before: 0, owed: "", content: 0, skipped: true });
      return;
    }
    this.open("a", `<a href="${escapeAttribute(href)}">`);
  }

  private image(token: Token): void {
    const src = String(token.attrGet("src") ?? "");
    const alt = token.content || src;
    if (!SAFE_URL.test(src.trim()) || this.isOpen("a")) {
      this.text(token.content);
      return;
    }
    this.open("a", `<a href="${escapeAttribute(src)}">`);
    this.text(alt);
    this.close();
  }

  private wrap(tag: string, content: string): void {
    if (content === "") return;
    this.open(tag);
    this.text(content);
    this.close();
  }

  private isOpen(tag: string): boolean {
    return this.tags.some((open) => open.tag === tag && !open.skipped);
  }

  private open(tag: string, html = `<${tag}>`): void {
    const before = this.out.length;
    const owed = this.owed;
    this.flush();
    const skipped = this.isOpen(tag);
    if (!skipped) this.out += html;
    this.tags.push({ tag, before, owed, content: this.out.length, skipped });
  }

  /** Closes the innermost tag; one that got no content is taken back out rather than left empty. */
  private close(): void {
    const open = this.tags.pop();
    if (!open || open.skipped) return;
    if (this.out.length === open.content) {
      this.out = this.out.slice(0, open.before);
      this.owe(open.owed);
    } else {
      this.out += `</${open.tag}>`;
    }
  }

  private text(content: string): void {
    if (content === "") return;
    this.flush();
    this.out += escapeHtml(content);
    if (content.trim() !== "") this.visible = true;
  }

  private owe(breaks: string): void {
    if (breaks.length > this.owed.length) this.owed = breaks;
  }

  private flush(): void {
    if (this.out !== "") this.out += this.owed;
    this.owed = "";
  }
}

/** Markdown as Telegram HTML; "" when nothing in it would be visible (Telegram refuses empty text). */
export function renderTelegramHtml(markdown: string): string {
  const tokens = parser.parse(markdown, {});
  // Nesting that deep is an attack or an accident, and what lies deeper would be lost: show it as written.
  if (tokens.some((token) => token.level >= MAX_NESTING - 1)) {
    return markdown.trim() === "" ? "" : escapeHtml(markdown);
  }
  const writer = new TelegramWriter();
  writer.blocks(tokens);
  return writer.result();
}
