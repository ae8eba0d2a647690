import { describe, expect, it } from "vitest";
import { dispatchFrame, type FrameHandlers, joinFrameHandlers } from "../src/frame-families.ts";

// One table per side: every frame type has exactly one handler, checked by the compiler. The
// expect-error directives below make `pnpm check` fail if a missing or doubled handler compiles.

type Frame = { type: "a"; n: number } | { type: "b"; s: string } | { type: "c" };
const seen: string[] = [];
const a: FrameHandlers<Extract<Frame, { type: "a" }>> = { a: (frame) => void seen.push(`a:${frame.n}`) };
const bc: FrameHandlers<Extract<Frame, { type: "b" | "c" }>> = {
  b: (frame) => void seen.push(`b:${frame.s}`),
  c: () => void seen.push("c"),
};
const ab: FrameHandlers<Extract<Frame, { type: "a" | "b" }>> = { a: () => {}, b: () => {} };

describe("joinFrameHandlers", () => {
  it("joins disjoint parts into one table that dispatches each frame to its owner", () => {
    const table = joinFrameHandlers<Frame>()(a, bc);
    seen.length = 0;
    for (const frame of [{ type: "b", s: "x" }, { type: "a", n: 1 }, { type: "c" }] as Frame[])
      dispatchFrame(table, frame);
    expect(seen).toEqual(["b:x", "a:1", "c"]);
  });

  it("does not compile with a frame type left unhandled, or handled twice", () => {
    // @ts-expect-error "c" has no handler
    const missing = joinFrameHandlers<Frame>()(a, ab);
    // @ts-expect-error "a" is handled by two parts
    const twice = joinFrameHandlers<Frame>()(a, ab, bc);
    // At run time the later part wins; the compiler is what refuses both tables.
    expect(Object.keys(missing).sort()).toEqual(["a", "b"]);
    expect(Object.keys(twice).sort()).toEqual(["a", "b", "c"]);
  });
});
