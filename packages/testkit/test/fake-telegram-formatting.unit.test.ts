import { describe, expect, it } from "vitest";
import { parseHtml, parseMarkdownV2 } from "../src/index.ts";

// The fake's parse_mode checks: what Telegram accepts becomes plain text plus entities (UTF-16
// offsets), what it refuses gets its error (UTF-8 byte offsets).

describe("fake Telegram HTML parse mode", () => {
  it("turns tags into entities and decodes the HTML entities Telegram knows", () => {
    expect(
      parseHtml(
        'é <b>bold <i>both</i></b> <a href="https://x.y/?a=1&amp;b=2">link</a> &lt;&amp;&gt; &copy; 5 &#x26; 6',
      ),
    ).toEqual({
      text: "é bold both link <&> &copy; 5 & 6",
      entities: [
        { type: "bold", offset: 2, length: 9 },
        { type: "italic", offset: 7, length: 4 },
        { type: "text_link", offset: 12, length: 4, url: "https://x.y/?a=1&amp;b=2" },
      ],
    });
    expect(
      parseHtml('<pre><code class="language-ts">x</code></pre><span class="tg-spoiler">s</span>'),
    ).toMatchObject({
      text: "xs",
    });
  });

  it("refuses what Telegram refuses, at UTF-8 byte offsets", () => {
    expect(parseHtml("é <foo>x</foo>")).toEqual({ error: 'Unsupported start tag "foo" at byte offset 3' });
    expect(parseHtml("1 < 2")).toEqual({ error: 'Unsupported start tag "" at byte offset 2' });
    expect(parseHtml("<b>x")).toEqual({ error: `Can't find end tag corresponding to start tag "b"` });
    expect(parseHtml("x</b>")).toEqual({ error: "Unexpected end tag at byte offset 1" });
    expect(parseHtml("<b><i>x</b></i>")).toEqual({
      error: 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"',
    });
    expect(parseHtml("<b")).toEqual({ error: "Unclosed start tag at byte offset 0" });
    expect(parseHtml("<span>x</span>")).toEqual({
      error: 'Tag "span" must have class "tg-spoiler" at byte offset 0',
    });
  });
});

describe("fake Telegram MarkdownV2 parse mode", () => {
  it("parses entities and escapes", () => {
    expect(parseMarkdownV2("*bold _both_* __u__ ~s~ ||sp|| `c\\`` [l](https://x.y/\\)) 1\\.2\\!")).toEqual({
      text: "bold both u s sp c` l 1.2!",
      entities: [
        { type: "bold", offset: 0, length: 9 },
        { type: "italic", offset: 5, length: 4 },
        { type: "underline", offset: 10, length: 1 },
        { type: "strikethrough", offset: 12, length: 1 },
        { type: "spoiler", offset: 14, length: 2 },
        { type: "code", offset: 17, length: 2 },
        { type: "text_link", offset: 20, length: 1, url: "https://x.y/)" },
      ],
    });
    expect(parseMarkdownV2("```ts\nconst a = 1;\n```")).toEqual({
      text: "const a = 1;\n",
      entities: [{ type: "pre", offset: 0, length: 13, language: "ts" }],
    });
  });

  it("refuses unescaped reserved characters and unclosed entities", () => {
    expect(parseMarkdownV2("done.")).toEqual({
      error: "Character '.' is reserved and must be escaped with the preceding '\\'",
    });
    expect(parseMarkdownV2("a (b)")).toEqual({
      error: "Character '(' is reserved and must be escaped with the preceding '\\'",
    });
    expect(parseMarkdownV2("é *bold")).toEqual({ error: "Can't find end of Bold entity at byte offset 3" });
    expect(parseMarkdownV2("_it")).toEqual({ error: "Can't find end of Italic entity at byte offset 0" });
  });
});
