import { parseHtml } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { renderTelegramHtml } from "../src/chat/render/telegram-html.ts";

/** What Telegram shows for `html`: the fake Bot API's parser, which refuses what the real one refuses. */
function shown(html: string) {
  const parsed = parseHtml(html);
  if ("error" in parsed) throw new Error(`Telegram would refuse ${JSON.stringify(html)}: ${parsed.error}`);
  return parsed;
}
const visible = (markdown: string) => shown(renderTelegramHtml(markdown)).text;
const entityTypes = (markdown: string) =>
  shown(renderTelegramHtml(markdown)).entities.map((entity) => entity.type);

describe("renderTelegramHtml: markup", () => {
  it("bold, italic, strike and inline code become Telegram's tags", () => {
    expect(renderTelegramHtml("**b** __b2__ *i* _i2_ ~~s~~ `c`")).toBe(
      "<b>b</b> <b>b2</b> <i>i</i> <i>i2</i> <s>s</s> <code>c</code>",
    );
  });

  it("nested emphasis nests properly", () => {
    expect(renderTelegramHtml("*a **b** c*")).toBe("<i>a <b>b</b> c</i>");
    expect(renderTelegramHtml("***both***")).toBe("<i><b>both</b></i>");
    expect(visible("*a **b** c*")).toBe("a b c");
  });

  it("headings are bold, without a second <b> for bold inside them", () => {
    expect(renderTelegramHtml("## Title with **bold**\n\ntext")).toBe("<b>Title with bold</b>\n\ntext");
  });

  it("fenced code (``` and ~~~) becomes <pre><code class=language-x>, or <pre> without a language", () => {
    expect(renderTelegramHtml("```ts\nconst a = 1;\n```")).toBe(
      '<pre><code class="language-ts">const a = 1;</code></pre>',
    );
    expect(renderTelegramHtml("~~~\nplain\n~~~")).toBe("<pre>plain</pre>");
    expect(entityTypes("```py\nx\n```").sort()).toEqual(["code", "pre"]);
  });

  it("a language that could break out of the class attribute is dropped", () => {
    const html = renderTelegramHtml('```js"><b>x\ncode\n```');
    expect(html).toBe("<pre>code</pre>");
  });

  it("quotes become <blockquote>; a quote in a quote is flattened (Telegram cannot nest them)", () => {
    expect(renderTelegramHtml("> one\n> two")).toBe("<blockquote>one\ntwo</blockquote>");
    const html = renderTelegramHtml("> outer\n>\n> > inner");
    expect(html.match(/<blockquote>/g)).toHaveLength(1);
    expect(visible("> outer\n>\n> > inner")).toBe("outer\n\ninner");
  });

  it("lists stay text, bullets as •, numbers as written, nested ones indented", () => {
    expect(visible("- a\n- b\n  1. c\n  2. d\n\nafter")).toBe("• a\n• b\n  1. c\n  2. d\n\nafter");
    expect(visible("3) third\n4) fourth")).toBe("3) third\n4) fourth");
  });

  it("paragraphs keep their line breaks and blank lines between them", () => {
    expect(renderTelegramHtml("one\ntwo\n\n\n\nthree")).toBe("one\ntwo\n\nthree");
  });

  it("tables become rows of cells, rules become a line", () => {
    expect(visible("| a | b |\n|---|---|\n| **c** | d |\n\n---\n\nend")).toBe("a | b\nc | d\n\n———\n\nend");
  });
});

describe("renderTelegramHtml: what a user typed shows literally", () => {
  it("HTML typed in text is escaped, never markup", () => {
    expect(renderTelegramHtml("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(visible("<b>not bold</b> & <i>")).toBe("<b>not bold</b> & <i>");
    expect(entityTypes("<b>not bold</b>")).toEqual([]);
  });

  it("an already-escaped entity is escaped again, so it cannot turn into a tag", () => {
    // CommonMark reads &lt; as "<"; either way, what reaches Telegram is an escaped "<".
    expect(renderTelegramHtml("&lt;b&gt;x&lt;/b&gt;")).toBe("&lt;b&gt;x&lt;/b&gt;");
    expect(entityTypes("&lt;b&gt;x&lt;/b&gt;")).toEqual([]);
    expect(visible("&amp;lt;")).toBe("&lt;");
    expect(visible("AT&T &copy")).toBe("AT&T &copy");
  });

  it("unbalanced markers stay as written", () => {
    expect(visible("**unclosed bold")).toBe("**unclosed bold");
    expect(visible("a ~~strike")).toBe("a ~~strike");
    expect(visible("`open code")).toBe("`open code");
    expect(visible("[text](")).toBe("[text](");
  });

  it("underscores inside words are not emphasis", () => {
    expect(visible("use snake_case_names and file_name_*.txt")).toBe(
      "use snake_case_names and file_name_*.txt",
    );
    expect(entityTypes("my_var_name")).toEqual([]);
    expect(visible("`__init__.py`")).toBe("__init__.py");
  });

  it("stars with spaces around them, and globs, are not emphasis", () => {
    expect(visible("a * b * c")).toBe("a * b * c");
    expect(visible("src/**/*.ts and *.js, then rm -rf *")).toBe("src/**/*.ts and *.js, then rm -rf *");
    expect(entityTypes("a * b * c")).toEqual([]);
  });

  it("follows CommonMark (as GitHub shows it) where a pair does flank: a*b + c*d, __init__.py", () => {
    expect(renderTelegramHtml("a*b + c*d")).toBe("a<i>b + c</i>d");
    expect(renderTelegramHtml("__init__.py")).toBe("<b>init</b>.py");
  });

  it("a backslash escape shows the character itself", () => {
    expect(visible("\\*not italic\\* \\<b\\>")).toBe("*not italic* <b>");
  });

  it("raw HTML blocks are text too", () => {
    expect(visible('<div class="x">\n<img src=x onerror=alert(1)>\n</div>')).toBe(
      '<div class="x">\n<img src=x onerror=alert(1)>\n</div>',
    );
  });
});

describe("renderTelegramHtml: code", () => {
  it("code is escaped but not transformed", () => {
    const markdown = "```html\n</code></pre><b>**not bold**</b> &amp; <script>\n```";
    const html = renderTelegramHtml(markdown);
    expect(html).toBe(
      '<pre><code class="language-html">&lt;/code&gt;&lt;/pre&gt;&lt;b&gt;**not bold**&lt;/b&gt; &amp;amp; &lt;script&gt;</code></pre>',
    );
    expect(shown(html).text).toBe("</code></pre><b>**not bold**</b> &amp; <script>");
  });

  it("inline code keeps markers and HTML as text", () => {
    expect(visible("`</code><b>` and `**x**`")).toBe("</code><b> and **x**");
    expect(entityTypes("`a_b_c`")).toEqual(["code"]);
  });

  it("an unclosed fence runs to the end, still closed in the output", () => {
    expect(renderTelegramHtml("```\nnever closed <x>")).toBe("<pre>never closed &lt;x&gt;</pre>");
  });
});

describe("renderTelegramHtml: links", () => {
  it("http, https, tg and mailto links become <a href>", () => {
    expect(renderTelegramHtml("[site](https://example.com/a?b=1&c=2)")).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2">site</a>',
    );
    expect(renderTelegramHtml("[me](tg://user?id=1) [mail](mailto:a@b.c) <http://x.y>")).toBe(
      '<a href="tg://user?id=1">me</a> <a href="mailto:a@b.c">mail</a> <a href="http://x.y">http://x.y</a>',
    );
  });

  it("javascript:, data: and other schemes stay text, in any case and spelling", () => {
    for (const markdown of [
      "[x](javascript:alert(1))",
      "[x](JavaScript:alert(1))",
      "[x](<javascript:alert(1)>)",
      "[x](data:text/html;base64,PHNjcmlwdD4=)",
      "[x](file:///etc/passwd)",
      "[x](vbscript:msgbox)",
      "![x](javascript:alert(1))",
      "<javascript:alert(1)>",
    ]) {
      const html = renderTelegramHtml(markdown);
      expect(html).not.toContain("<a");
      expect(shown(html).text).toBe(markdown);
    }
  });

  it('a " or < in the URL cannot leave the href attribute', () => {
    const html = renderTelegramHtml('[x](http://a.b/"onmouseover="x"<b>)');
    const parsed = shown(html);
    expect(parsed.text).toBe("x");
    expect(parsed.entities).toHaveLength(1);
    expect(parsed.entities[0]).toMatchObject({
      type: "text_link",
      url: "http://a.b/%22onmouseover=%22x%22%3Cb%3E",
    });
    const titled = shown(renderTelegramHtml('[x](http://a.b "t\\"><b>")'));
    expect(titled).toMatchObject({ text: "x", entities: [{ type: "text_link", url: "http://a.b" }] });
  });

  it("code inside a link is plain text (Telegram lets a link hold no code)", () => {
    expect(renderTelegramHtml("[`npm i`](https://npmjs.com)")).toBe('<a href="https://npmjs.com">npm i</a>');
  });

  it("an image becomes a link to it, or its alt text when the URL is unsafe", () => {
    expect(renderTelegramHtml("![chart](https://x.y/c.png)")).toBe('<a href="https://x.y/c.png">chart</a>');
    expect(renderTelegramHtml("![](https://x.y/c.png)")).toBe(
      '<a href="https://x.y/c.png">https://x.y/c.png</a>',
    );
  });

  it("a reference definition shows as written rather than vanishing", () => {
    expect(visible("[a]: https://x.y")).toBe("[a]: https://x.y");
  });
});

describe("renderTelegramHtml: nesting", () => {
  it("shows quotes or lists nested past the parser's depth as written, rather than dropping their text", () => {
    const quotes = `${"> ".repeat(10_000)}deep`;
    expect(visible(quotes)).toBe(quotes);
    const lists = Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
    expect(visible(lists)).toContain("item 199");
  });

  it("renders ordinary nesting as usual", () => {
    expect(renderTelegramHtml("> - a\n>   - b")).toBe("<blockquote>• a\n  • b</blockquote>");
  });
});

describe("renderTelegramHtml: nothing to show", () => {
  it('is "" for empty input and for markup without text (Telegram refuses empty messages)', () => {
    for (const markdown of ["", "   \n\n  ", "```\n```", "#", ">", "[](https://x.y)"]) {
      expect(renderTelegramHtml(markdown)).toBe("");
    }
  });

  it("leaves no empty tag behind", () => {
    expect(renderTelegramHtml("text\n\n#\n\n>\n\nmore")).toBe("text\n\nmore");
  });
});
