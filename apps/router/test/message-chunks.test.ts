import { describe, expect, it } from "vitest";
import { splitForChat } from "../src/chat/message-chunks.ts";

const fences = (text: string) => (text.match(/^```/gm) ?? []).length;

describe("splitForChat", () => {
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
});
