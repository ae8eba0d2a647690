import { describe, expect, it } from "vitest";
import { capText } from "../src/index.ts";

describe("capText", () => {
  it("keeps short texts; cuts long ones with a marker that counts what was cut", () => {
    expect(capText("hello", 5)).toBe("hello");
    expect(capText("hello world", 5)).toBe("hello\n…[cut: 6 more characters]");
  });

  it("never ends in half a character (a surrogate pair is kept whole or dropped whole)", () => {
    const text = `ab${"😀".repeat(3)}`; // each emoji is two UTF-16 units
    const capped = capText(text, 3); // would end between the halves of the first emoji
    expect(capped).toBe(`ab\n…[cut: ${text.length - 2} more characters]`);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
  });
});
