import { parseHtml } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  loadDialects,
  type RenderTarget,
  renderPieces,
  renderForPlatform as renderWith,
} from "../src/chat/render/render-for-platform.ts";

// Every dialect's real renderer (the hub loads Telegram's parser only when a platform needs it).
const dialects = await loadDialects(["telegram-html"]);
const renderForPlatform = (markdown: string, target: RenderTarget) => renderWith(markdown, target, dialects);

const telegram = { markdown: "telegram-html", maxMessageLength: 4096 } as const;
const HEADER = /^\[(\d+)\/(\d+)\]\n/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Checks what Telegram would check of each message; returns what each shows, headers removed. */
function sendable(pieces: string[], limit: number): string[] {
  return pieces.map((piece, index) => {
    expect(piece.length).toBeLessThanOrEqual(limit);
    expect(piece).not.toMatch(LONE_SURROGATE);
    const parsed = parseHtml(piece);
    if ("error" in parsed) throw new Error(`piece ${index + 1} refused: ${parsed.error}\n${piece}`);
    if (pieces.length > 1) expect(parsed.text).toMatch(new RegExp(`^\\[${index + 1}/${pieces.length}\\]\\n`));
    return parsed.text.replace(HEADER, "");
  });
}

describe("renderForPlatform", () => {
  it("renders a short text as one message without a header", () => {
    expect(renderForPlatform("**hi** <you>", telegram)).toEqual(["<b>hi</b> &lt;you&gt;"]);
    expect(renderForPlatform("**hi** <you>", { markdown: "plain", maxMessageLength: 100 })).toEqual([
      "**hi** <you>",
    ]);
    expect(renderForPlatform("**hi** <you>", { markdown: "feishu-md", maxMessageLength: 100 })).toEqual([
      "**hi** <you>",
    ]);
  });

  it("sends nothing for empty or invisible input", () => {
    for (const markdown of ["", "  \n\n ", "```\n```"]) {
      expect(renderForPlatform(markdown, telegram)).toEqual([]);
    }
    expect(renderForPlatform("", { markdown: "plain", maxMessageLength: 100 })).toEqual([]);
  });

  it("counts the [i/n] header toward the limit", () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `paragraph ${i} ${"word ".repeat(30)}`.trim());
    const pieces = renderForPlatform(paragraphs.join("\n\n"), {
      markdown: "telegram-html",
      maxMessageLength: 400,
    });
    expect(pieces.length).toBeGreaterThan(9); // two-digit headers
    const shown = sendable(pieces, 400).join("\n\n");
    expect(shown).toBe(paragraphs.join("\n\n"));
  });

  it("keeps every rendered piece of a long code block a whole, closed <pre> within 4096", () => {
    const lines = Array.from(
      { length: 400 },
      (_, i) => `line ${i}: if (a < b && c > d) { x = "</code></pre><b>"; }`,
    );
    const markdown = `Here:\n\n\`\`\`ts\n${lines.join("\n")}\n\`\`\`\n\nDone.`;
    const pieces = renderForPlatform(markdown, telegram);
    expect(pieces.length).toBeGreaterThan(1);
    const shown = sendable(pieces, 4096);
    for (const piece of pieces) {
      if (!piece.includes("<pre>")) continue;
      expect(piece).toMatch(/<pre><code class="language-ts">[^<]*<\/code><\/pre>/);
      const parsed = parseHtml(piece);
      expect("error" in parsed ? [] : parsed.entities.map((e) => e.type)).toContain("pre");
    }
    const codeLines = shown
      .join("\n")
      .split("\n")
      .filter((line) => line.startsWith("line "));
    expect(codeLines).toEqual(lines); // every line, whole and in order
  });

  it("fits 10,000 '<' (each four characters once escaped)", () => {
    const markdown = "<".repeat(10_000);
    const pieces = renderForPlatform(markdown, telegram);
    expect(pieces.length).toBeGreaterThanOrEqual(10);
    expect(sendable(pieces, 4096).join("")).toBe(markdown);
  });

  it("fits 10,000 '&' inside a code block, re-fenced in every piece", () => {
    const markdown = `\`\`\`\n${"&".repeat(10_000)}\n\`\`\``;
    const pieces = renderForPlatform(markdown, telegram);
    expect(pieces.every((piece) => /^\[\d+\/\d+\]\n<pre>(&amp;)+<\/pre>$/.test(piece))).toBe(true);
    expect(sendable(pieces, 4096).join("").replaceAll("\n", "")).toBe("&".repeat(10_000));
  });

  it("never cuts an emoji in half", () => {
    const markdown = `${"😀".repeat(5_000)}x`;
    for (const markdown2 of [markdown, `\`\`\`\n${markdown}\n\`\`\``, `a${markdown}`]) {
      const shown = sendable(renderForPlatform(markdown2, telegram), 4096);
      expect(shown.join("").replaceAll("\n", "")).toBe(markdown2.replaceAll(/`{3}|\n/g, ""));
    }
    const plain = renderForPlatform(`a${markdown}`, { markdown: "plain", maxMessageLength: 101 });
    for (const piece of plain) {
      expect(piece.length).toBeLessThanOrEqual(101);
      expect(piece).not.toMatch(LONE_SURROGATE);
    }
  });

  it("splits a huge single line with markup in it, every piece balanced", () => {
    const markdown = `**${"bold <b> & ".repeat(2_000)}** and [link](https://x.y/${"p".repeat(5_000)})`;
    const shown = sendable(renderForPlatform(markdown, telegram), 4096);
    expect(shown.join(" ").match(/bold/g)).toHaveLength(2_000);
  });

  it("keeps the text of quotes nested thousands deep", () => {
    const shown = sendable(renderForPlatform(`${"> ".repeat(10_000)}deep`, telegram), 4096);
    expect(shown.join("")).toMatch(/deep$/);
  });

  it("copes with a code fence whose opening line alone is longer than a message", () => {
    const markdown = `\`\`\`${"x".repeat(5_000)}\ncode <here>\n\`\`\``;
    const shown = sendable(renderForPlatform(markdown, telegram), 4096);
    expect(shown.join("\n")).toContain("code <here>");
  });

  it("splits plain and Feishu text on the source alone, headers included", () => {
    const markdown = Array.from(
      { length: 20 },
      (_, i) => `para ${i} <at id=all></at> ${"z".repeat(80)}`,
    ).join("\n\n");
    for (const dialect of ["plain", "feishu-md"] as const) {
      const pieces = renderForPlatform(markdown, { markdown: dialect, maxMessageLength: 300 });
      expect(pieces.length).toBeGreaterThan(1);
      for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(300);
      expect(pieces.map((piece) => piece.replace(HEADER, "")).join("\n\n")).toBe(markdown);
    }
  });

  it("refuses a limit too small to hold a header and text", () => {
    expect(() => renderForPlatform("x", { markdown: "plain", maxMessageLength: 10 })).toThrow(RangeError);
  });
});

describe("renderPieces: the bounds for a dialect that renders ever longer", () => {
  it("re-splits a piece whose rendering outgrows the limit", () => {
    const fivefold = {
      render: (text: string) => text.replaceAll("a", "aaaaa"),
      literal: (text: string) => text,
    };
    const pieces = renderPieces("a".repeat(1_000), 400, fivefold);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(400);
    expect(pieces.map((piece) => piece.replace(HEADER, "")).join("")).toBe("a".repeat(5_000));
  });

  it("cuts the source as literal text when no split makes it fit", () => {
    // A fixed 80-character preamble can never fit in a 64-character message.
    const bloated = { render: (text: string) => `${"#".repeat(80)}${text}`, literal: (text: string) => text };
    const pieces = renderPieces("hello world ".repeat(20), 64, bloated);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(64);
    expect(pieces.map((piece) => piece.replace(HEADER, "")).join("")).toBe("hello world ".repeat(20));
  });
});
