import { describe, expect, it } from "vitest";
import { controlOf, keySequence, withModifiers } from "../web/src/terminal-keys.ts";

// The bytes the console's key bar sends: what a real keyboard sends through xterm.js for each key.

describe("terminal key bar sequences", () => {
  it("sends Esc, Tab, the one-tap Ctrl-C and Ctrl-D, the arrows, Home/End and PgUp/PgDn", () => {
    expect(keySequence("escape")).toBe("\x1b");
    expect(keySequence("tab")).toBe("\t");
    expect(keySequence("ctrlC")).toBe("\x03");
    expect(keySequence("ctrlD")).toBe("\x04");
    expect(["up", "down", "right", "left"].map((key) => keySequence(key as "up"))).toEqual([
      "\x1b[A",
      "\x1b[B",
      "\x1b[C",
      "\x1b[D",
    ]);
    expect(keySequence("home")).toBe("\x1b[H");
    expect(keySequence("end")).toBe("\x1b[F");
    expect(keySequence("pageUp")).toBe("\x1b[5~");
    expect(keySequence("pageDown")).toBe("\x1b[6~");
  });

  it("sends the cursor keys as SS3 in application cursor mode (vim, less), PgUp/PgDn unchanged", () => {
    expect(keySequence("up", true)).toBe("\x1bOA");
    expect(keySequence("left", true)).toBe("\x1bOD");
    expect(keySequence("home", true)).toBe("\x1bOH");
    expect(keySequence("end", true)).toBe("\x1bOF");
    expect(keySequence("pageUp", true)).toBe("\x1b[5~");
    expect(keySequence("escape", true)).toBe("\x1b");
  });

  it("turns a typed letter into its control character, either case, and the usual symbols too", () => {
    expect(controlOf("c")).toBe("\x03");
    expect(controlOf("C")).toBe("\x03");
    expect(controlOf("a")).toBe("\x01");
    expect(controlOf("z")).toBe("\x1a");
    expect(controlOf("d")).toBe("\x04");
    expect(controlOf("[")).toBe("\x1b");
    expect(controlOf("\\")).toBe("\x1c");
    expect(controlOf("]")).toBe("\x1d");
    expect(controlOf("_")).toBe("\x1f");
    expect(controlOf(" ")).toBe("\x00");
    expect(controlOf("@")).toBe("\x00");
    expect(controlOf("?")).toBe("\x7f");
  });

  it("leaves what has no control character alone: digits, other letters' scripts, words, sequences", () => {
    expect(controlOf("1")).toBe("1");
    expect(controlOf("é")).toBe("é");
    expect(controlOf("ls")).toBe("ls"); // a keyboard suggestion inserting a whole word
    expect(controlOf("\x1b[A")).toBe("\x1b[A");
    expect(controlOf("")).toBe("");
  });

  it("applies the held modifiers: Ctrl first, then Alt's ESC prefix", () => {
    expect(withModifiers("x", { ctrl: false, alt: false })).toBe("x");
    expect(withModifiers("c", { ctrl: true, alt: false })).toBe("\x03");
    expect(withModifiers("b", { ctrl: false, alt: true })).toBe("\x1bb");
    expect(withModifiers("x", { ctrl: true, alt: true })).toBe("\x1b\x18");
    expect(withModifiers(keySequence("left"), { ctrl: false, alt: true })).toBe("\x1b\x1b[D");
  });
});
