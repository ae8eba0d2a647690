import { describe, expect, it } from "vitest";
import { codeBlock, codeSpan } from "../src/contracts/code-block.ts";
import { parseKeys } from "../src/terminals/key-notation.ts";
import { utf8Bytes, utf8Prefix } from "../src/terminals/output-queue.ts";

// What /keys types, and how a screen is fenced so that nothing on it can end the code block.

describe("key notation", () => {
  it("types text as written and named keys as a terminal sends them", () => {
    expect(parseKeys("alice<Enter>")).toBe("alice\r");
    expect(parseKeys("<Tab><Esc><BS><Space>")).toBe("\t\x1b\x7f ");
    expect(parseKeys("<Up><Down><Right><Left>")).toBe("\x1b[A\x1b[B\x1b[C\x1b[D");
    expect(parseKeys("<Home><End><PgUp><PgDn><Del>")).toBe("\x1b[H\x1b[F\x1b[5~\x1b[6~\x1b[3~");
    expect(parseKeys(":wq<CR>")).toBe(":wq\r");
  });

  it("reads names in any case", () => {
    expect(parseKeys("<enter><ENTER><esc><c-c><C-C>")).toBe("\r\r\x1b\x03\x03");
  });

  it("<C-x> is Ctrl with any letter or terminal control key", () => {
    expect(parseKeys("<C-c>")).toBe("\x03");
    expect(parseKeys("<C-d><C-z><C-a><C-l>")).toBe("\x04\x1a\x01\x0c");
    expect(parseKeys("<C-[><C-\\><C-]><C-^><C-_><C-@><C-?><C-Space>")).toBe("\x1b\x1c\x1d\x1e\x1f\0\x7f\0");
  });

  it("leaves what names no key as it is, and <lt> is a literal <", () => {
    expect(parseKeys("echo <html> <C-1> <Foo> <>")).toBe("echo <html> <C-1> <Foo> <>");
    expect(parseKeys("<lt>Enter>")).toBe("<Enter>");
    expect(parseKeys("a < b > c")).toBe("a < b > c");
  });

  it("a line break in the message is Enter", () => {
    expect(parseKeys("one\ntwo\r\n")).toBe("one\rtwo\r");
  });
});

describe("a screen as a chat code block", () => {
  it("uses a fence longer than any run of backticks on the screen", () => {
    expect(codeBlock("plain")).toBe("```\nplain\n```");
    expect(codeBlock("```\nnot the end\n```")).toBe("````\n```\nnot the end\n```\n````");
    expect(codeBlock("x `````` y")).toBe("```````\nx `````` y\n```````");
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`edge")).toBe("`` `edge ``");
  });
});

describe("output cut into frames", () => {
  it("never cuts a character in half", () => {
    const text = "aé€😀";
    expect(utf8Bytes(text)).toBe(1 + 2 + 3 + 4);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => utf8Prefix(text, n))).toEqual([
      "",
      "a",
      "a",
      "aé",
      "aé",
      "aé",
      "aé€",
      "aé€",
      "aé€",
      "aé€",
      "aé€😀",
    ]);
  });
});
