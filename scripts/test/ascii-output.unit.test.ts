import { describe, expect, it } from "vitest";
import { escapeNonAscii, proveEscaped } from "../ascii-output.ts";

// The bundle's ASCII rewrite (scripts/ascii-output.ts): what esbuild leaves above U+007F in its
// output — comments and regular expressions — is escaped to the same program, and the proof that
// `pnpm package` runs refuses a rewrite that would change one (a tagged template's raw text).

/** The module's exports, loaded from its text. */
const load = async (code: string): Promise<Record<string, unknown>> =>
  import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);

const SOURCE = [
  "export const o = {",
  "  // a comment — with a dash and an ellipsis …",
  "  /** Request id → what it asked. */",
  "  a: 1,",
  "};",
  "export const stops = /[.!?。！？]+$/u;",
  "export const escaped = /a\\…b/;",
  "export const faces = /^[😀-😂]$/u;",
  "export const pairs = /😀/;",
].join("\n");

describe("the bundle's ASCII rewrite", () => {
  it("leaves no character above U+007F, and the regular expressions match what they matched", async () => {
    const escaped = escapeNonAscii(SOURCE);
    expect(escaped).toMatch(/^[\x20-\x7e\n]*$/);
    expect(escaped).toContain("// a comment \\u2014 with a dash");
    expect(() => proveEscaped("source.js", SOURCE, escaped)).not.toThrow();
    const [before, after] = await Promise.all([load(SOURCE), load(escaped)]);
    for (const name of ["stops", "escaped", "faces", "pairs"]) {
      const [was, is] = [before[name] as RegExp, after[name] as RegExp];
      for (const text of ["done。", "done!", "done", "a…b", "a\\…b", "😁", "😃", "\ud83d", "x😀y"])
        expect(is.test(text), `${name} on ${JSON.stringify(text)}`).toBe(was.test(text));
    }
    expect((after.stops as RegExp).test("好！")).toBe(true);
    expect((after.faces as RegExp).test("😁")).toBe(true);
  });

  it("is refused where an escape would change the program: a tagged template's raw text", () => {
    const code = "export const raw = String.raw`a…b`;";
    expect(() => proveEscaped("chunk.js", code, escapeNonAscii(code))).toThrow(
      /chunk\.js: .*tagged template/,
    );
  });

  it("leaves ASCII text as it is", () => {
    const code = 'export const s = "\\u2026"; // plain\n';
    expect(escapeNonAscii(code)).toBe(code);
  });
});
