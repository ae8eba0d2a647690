import { describe, expect, it } from "vitest";
import { splitMarkdown } from "../src/chat/render/message-chunks.ts";
import { renderForPlatform } from "../src/chat/render/render-for-platform.ts";

/** A reply split for a platform that shows text as written. */
const splitForChat = (text: string, limit: number) =>
  renderForPlatform(text, { markdown: "plain", maxMessageLength: limit });

const fences = (text: string) => (text.match(/^```/gm) ?? []).length;

describe("a long reply, split for the chat", () => {
  it("leaves a short reply alone", () => {
    expect(splitForChat("hello", 100)).toEqual(["hello"]);
  });

  it("splits on paragraph boundaries with [i/n] headers", () => {
    const text = ["a".repeat(60), "b".repeat(60), "c".repeat(60)].join("\n\n");
    const parts = splitForChat(text, 100);
    expect(parts).toEqual([
      `[1/3]\n${"a".repeat(60)}`,
      `[2/3]\n${"b".repeat(60)}`,
      `[3/3]\n${"c".repeat(60)}`,
    ]);
  });

  it("never cuts a code block that fits in one message", () => {
    const code = ["```ts", ...Array.from({ length: 8 }, (_, i) => `const x${i} = ${i};`), "```"].join("\n");
    const text = `${"intro ".repeat(15)}\n\n${code}\n\n${"outro ".repeat(15)}`;
    const parts = splitForChat(text, 200);
    const withCode = parts.filter((p) => p.includes("```"));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]).toContain(code);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(200);
  });

  it("re-fences a code block longer than one message, so every part is a valid block", () => {
    const code = ["```py", ...Array.from({ length: 40 }, (_, i) => `print(${i})  # line ${i}`), "```"].join(
      "\n",
    );
    const parts = splitForChat(code, 300);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(300);
      expect(fences(part)).toBe(2);
      expect(part).toMatch(/^\[\d+\/\d+\]\n```py\n/);
    }
    const lines = parts.flatMap((p) => p.split("\n").filter((l) => l.startsWith("print(")));
    expect(lines).toHaveLength(40); // nothing lost
  });

  it("re-fences an unclosed block without taking its last line for the closing fence", () => {
    const code = ["```", ...Array.from({ length: 30 }, (_, i) => `line ${i}`)].join("\n");
    const parts = splitMarkdown(code, 60);
    for (const part of parts) expect(part).toMatch(/^```\n[^`]*\n```$/);
    const lines = parts.flatMap((p) => p.split("\n").filter((l) => l.startsWith("line ")));
    expect(lines).toEqual(Array.from({ length: 30 }, (_, i) => `line ${i}`));
  });

  it("does not end a block at a fence line with an info string, or a shorter or other fence", () => {
    const body = ["```python", "~~~", "``", "x"];
    const code = ["````md", ...body, ...Array.from({ length: 20 }, (_, i) => `line ${i}`), "````"].join("\n");
    for (const part of splitMarkdown(code, 80)) {
      expect(part.startsWith("````md\n")).toBe(true);
      expect(part.endsWith("\n````")).toBe(true);
    }
    expect(splitMarkdown(code, 80)[0]).toContain(body.join("\n"));
  });

  it("cuts a long line at a space when one is near, never inside a surrogate pair", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta";
    const words = splitMarkdown(text, 20);
    expect(words.join("")).toBe(text);
    for (const part of words) expect(part.length).toBeLessThanOrEqual(20);
    for (const part of words.slice(0, -1)) expect(part.endsWith(" ")).toBe(true);
    const emoji = splitMarkdown("😀".repeat(50), 7);
    for (const part of emoji) expect(part).toMatch(/^(😀|\n)+$/);
    expect(emoji.join("").replaceAll("\n", "")).toBe("😀".repeat(50));
  });

  it("shortens a fence whose info string is too long to repeat in every part", () => {
    const code = [
      `\`\`\`ts ${"x".repeat(500)}`,
      ...Array.from({ length: 40 }, (_, i) => `l${i}`),
      "```",
    ].join("\n");
    const parts = splitMarkdown(code, 100);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(100);
      expect(part).toMatch(/^```ts x*\n[^`]*\n```$/);
    }
  });

  it("refuses a room too small to keep a character whole", () => {
    expect(() => splitMarkdown("abc", 1)).toThrow(RangeError);
  });
});
