import { fcParams, parseHtml } from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  loadDialects,
  type RenderTarget,
  renderForPlatform as renderWith,
} from "../src/chat/render/render-for-platform.ts";
import type { MarkdownDialect } from "../src/platforms/platform-adapter.ts";

// Every dialect's real renderer (the hub loads Telegram's parser only when a platform needs it).
const dialects = await loadDialects(["telegram-html"]);
const renderForPlatform = (markdown: string, target: RenderTarget) => renderWith(markdown, target, dialects);

// Random answers, hostile and ordinary, through every dialect and many limits: each message must
// be one the platform accepts, and no word of the answer may go missing.

const HEADER = /^\[(\d+)\/(\d+)\]\n/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const DIALECTS: MarkdownDialect[] = ["telegram-html", "feishu-md", "plain"];

/** What each message shows, headers removed; fails on anything the platform would refuse. */
function shownPieces(pieces: string[], dialect: MarkdownDialect, limit: number): string[] {
  return pieces.map((piece, index) => {
    if (piece.length > limit) throw new Error(`piece ${index + 1} is ${piece.length} > ${limit}`);
    if (LONE_SURROGATE.test(piece)) throw new Error(`piece ${index + 1} has half a surrogate pair`);
    if (piece.trim() === "") throw new Error(`piece ${index + 1} shows nothing`);
    if (pieces.length > 1 && !piece.startsWith(`[${index + 1}/${pieces.length}]\n`)) {
      throw new Error(`piece ${index + 1} lacks its header`);
    }
    if (dialect !== "telegram-html") return piece.replace(HEADER, "");
    const parsed = parseHtml(piece);
    if ("error" in parsed) throw new Error(`piece ${index + 1} refused: ${parsed.error}\n${piece}`);
    return parsed.text.replace(HEADER, "");
  });
}

// Hostile text: markup fragments, entities, fences, emoji and long runs, in any order.
const fragment = fc.constantFrom(
  ..."ab xyz\n\n*_~`<>&[]()#->|\\!\"':;/.=+1".split(""),
  "**",
  "__",
  "~~",
  "```",
  "```js",
  "~~~",
  "\n```\n",
  "&lt;",
  "&amp;",
  "&#x1F600;",
  "</code>",
  "<b>",
  "<pre>",
  "http://x.y/",
  "javascript:alert(1)",
  "](",
  "😀",
  "👩‍💻",
  "é",
  "\ud83d",
  "    ",
  "> ",
  "- ",
);
const run = fc.tuple(fragment, fc.integer({ min: 1, max: 300 })).map(([text, times]) => text.repeat(times));
const hostile = fc
  .array(fc.oneof({ weight: 8, arbitrary: fragment }, { weight: 1, arbitrary: run }), {
    maxLength: 200,
    size: "large",
  })
  .map((parts) => parts.join(""));

// Ordinary answers built from known words, so what must be visible is known without rendering.
const word = fc.stringMatching(/^[a-z]{1,10}$/);
const filler = fc.constantFrom("<", ">", "&", "&&", '"', "*", "**", "_", "~~", "<b>", "</i>", "😀", "a*b");
const inline = fc.oneof(
  { weight: 6, arbitrary: word.map((w) => ({ text: w, words: [w] })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom("**%**", "*%*", "_%_", "__%__", "~~%~~", "`%`", "[%](https://x.y/?a=1&b=<2>)"),
        word,
      )
      .map(([wrapper, w]) => ({ text: wrapper.replace("%", w), words: [w] })),
  },
  { weight: 2, arbitrary: filler.map((text) => ({ text, words: [] as string[] })) },
);
const line = fc.array(inline, { minLength: 1, maxLength: 12 }).map((parts) => ({
  text: parts.map((part) => part.text).join(" "),
  words: parts.flatMap((part) => part.words),
}));
const longLine = fc.tuple(line, fc.integer({ min: 1, max: 60 })).map(([l, times]) => ({
  text: Array(times).fill(l.text).join(" "),
  words: Array.from({ length: times }, () => l.words).flat(),
}));
const lines = (prefix: string) =>
  fc
    .array(fc.oneof({ weight: 5, arbitrary: line }, { weight: 1, arbitrary: longLine }), {
      minLength: 1,
      maxLength: 6,
    })
    .map((ls) => ({
      text: ls.map((l) => `${prefix}${l.text}`).join("\n"),
      words: ls.flatMap((l) => l.words),
    }));
const codeLine = fc
  .array(fc.oneof(word, fc.constantFrom("</code>", "<b>", "&amp;", "**", "_x_", "  ", "```js", "~~~~x")), {
    maxLength: 10,
  })
  .map((parts) => parts.join(" "));
const codeBlock = fc
  .tuple(fc.constantFrom("```", "```ts", "~~~", "````"), fc.array(codeLine, { maxLength: 80 }))
  .map(([fence, body]) => {
    const marker = /^[`~]+/.exec(fence)?.[0] ?? "```";
    return {
      text: [fence, ...body, marker].join("\n"),
      words: body.flatMap((l) => l.split(" ").filter((part) => /^[a-z]+$/.test(part))),
    };
  });
const block = fc.oneof(
  lines(""),
  lines("> "),
  lines("- "),
  lines("1. "),
  line.map((l) => ({ text: `## ${l.text}`, words: l.words })),
  fc
    .tuple(fc.constantFrom("> ", "- ", "> - "), fc.integer({ min: 1, max: 80 }), line)
    .map(([marker, depth, l]) => ({ text: `${marker.repeat(depth)}${l.text}`, words: l.words })),
  codeBlock,
);
const answer = fc.array(block, { maxLength: 12, size: "medium" }).map((blocks) => ({
  text: blocks.map((b) => b.text).join("\n\n"),
  words: blocks.flatMap((b) => b.words),
}));

const limit = fc.oneof(fc.integer({ min: 64, max: 600 }), fc.constant(4096));
// Below this, a code piece may not fit even split small, and the last resort shows its source as
// text: every character kept, but fence markers then stand between the halves of a cut word.
const roomyLimit = fc.oneof(fc.integer({ min: 160, max: 800 }), fc.constant(4096));

/** Each word in order in `haystack`, whitespace aside (a cut may break a line or a word). */
function missingWord(words: string[], shown: string): string | undefined {
  const haystack = shown.replace(/\s+/g, "");
  let from = 0;
  for (const w of words) {
    const at = haystack.indexOf(w, from);
    if (at === -1) return w;
    from = at + w.length;
  }
  return undefined;
}

describe("renderForPlatform on random input", () => {
  it("every message is accepted and within the limit, whatever the text", () => {
    fc.assert(
      fc.property(hostile, limit, fc.constantFrom(...DIALECTS), (markdown, max, dialect) => {
        const pieces = renderForPlatform(markdown, { markdown: dialect, maxMessageLength: max });
        shownPieces(pieces, dialect, max);
        if (markdown.trim() !== "" && dialect !== "telegram-html") expect(pieces.length).toBeGreaterThan(0);
      }),
      fcParams({ numRuns: 400 }),
    );
  });

  it("no word goes missing, in any dialect", () => {
    fc.assert(
      fc.property(answer, roomyLimit, fc.constantFrom(...DIALECTS), (generated, max, dialect) => {
        const pieces = renderForPlatform(generated.text, { markdown: dialect, maxMessageLength: max });
        const shown = shownPieces(pieces, dialect, max).join("");
        expect(missingWord(generated.words, shown)).toBeUndefined();
      }),
      fcParams({ numRuns: 300 }),
    );
  });
});
