import fc from "fast-check";
import { describe, expect, it } from "vitest";
// testkit depends on protocol, so protocol's own tests take the generators by path (no cycle).
import { fcParams } from "../../testkit/src/fc-params.ts";
import { frameTypes, garbageFrames, nearValidFrames, validFrames } from "../../testkit/src/hostile-frames.ts";
import { decodeFrame, ErrorCode, encodeFrame, Frame, HostFrame, RouterFrame } from "../src/index.ts";

// decodeFrame in process, for both directions: it never throws, refuses with a typed, bounded,
// readable message, and accepts (and round-trips) every frame its schema allows.

const unions = [
  ["HostFrame", HostFrame],
  ["RouterFrame", RouterFrame],
] as const;
const LONE_SURROGATE = /\p{Cs}/u;
/** Any text, often with a character outside the BMP (two UTF-16 units) around the 64-unit cut. */
const typeNames = fc
  .tuple(
    fc.integer({ min: 50, max: 70 }),
    fc.constantFrom("😀", "𝄞", "👩‍💻"),
    fc.string({ unit: "grapheme" }),
  )
  .map(([prefix, wide, rest]) => `${"a".repeat(prefix)}${wide}${rest}`);

describe.each(unions)("decodeFrame(raw, %s) under hostile input", (_name, union) => {
  const anyRaw = fc.oneof(
    validFrames(union).map((frame) => JSON.stringify(frame)),
    nearValidFrames(union, frameTypes(Frame)),
    garbageFrames(union),
  );

  it("never throws; a refusal is BAD_FRAME with a short message", () => {
    fc.assert(
      fc.property(anyRaw, (raw) => {
        const result = decodeFrame(raw, union);
        if (result.ok) return;
        expect(ErrorCode.parse(result.code)).toBe("BAD_FRAME");
        expect(result.message.length).toBeGreaterThan(0);
        expect(result.message.length).toBeLessThan(1000);
      }),
      fcParams({ numRuns: 300 }),
    );
  });

  it("accepts every frame the schema allows, and re-encoding gives the same frame", () => {
    fc.assert(
      fc.property(validFrames(union), (frame) => {
        const decoded = decodeFrame(JSON.stringify(frame), union);
        expect(decoded.ok).toBe(true);
        if (!decoded.ok) return;
        expect(decodeFrame(encodeFrame(decoded.frame), union)).toEqual(decoded);
      }),
      fcParams({ numRuns: 300 }),
    );
  });

  it("names an unknown type without cutting a character in half", () => {
    fc.assert(
      fc.property(typeNames, (type) => {
        const result = decodeFrame(JSON.stringify({ type }), union);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.message.startsWith("unknown frame type '")).toBe(true);
        expect(result.message).not.toMatch(LONE_SURROGATE);
      }),
      fcParams({ numRuns: 300 }),
    );
  });
});
