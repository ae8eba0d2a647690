import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CI_SEED, fcParams, propertySeed } from "../src/fc-params.ts";

// The property tests' seed policy: FC_SEED replays, CI is fixed, a developer's run explores.

describe("propertySeed", () => {
  it("is FC_SEED when set, in CI or not", () => {
    expect(propertySeed({ FC_SEED: "1234" })).toBe(1234);
    expect(propertySeed({ FC_SEED: " -7 ", CI: "1" })).toBe(-7);
    expect(() => propertySeed({ FC_SEED: "soon" })).toThrow('FC_SEED must be an integer, got "soon"');
  });

  it("is the fixed CI seed in CI, and a random one elsewhere", () => {
    expect(propertySeed({ CI: "1" })).toBe(CI_SEED);
    expect(propertySeed({ CI: "true" })).toBe(CI_SEED);
    const local = new Set(Array.from({ length: 5 }, () => propertySeed({ CI: "false" })));
    expect(local.size).toBeGreaterThan(1);
    for (const seed of local) expect(Number.isSafeInteger(seed)).toBe(true);
  });
});

describe("fcParams", () => {
  it("keeps the caller's parameters", () => {
    expect(fcParams({ numRuns: 7 })).toMatchObject({ numRuns: 7, seed: expect.any(Number) });
  });

  it("a failing property names its seed and how to replay it, and the failure replays with that seed", () => {
    const failing = fc.property(fc.integer(), (n) => n < 1000);
    let message = "";
    try {
      fc.assert(failing, fcParams());
    } catch (error) {
      message = (error as Error).message;
    }
    const seed = Number(/Replay with FC_SEED=(-?\d+)/.exec(message)?.[1]);
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(message).toContain(`seed: ${seed}`);
    expect(message).toContain("Counterexample: [1000]");
    // The same seed finds the same counterexample.
    expect(() => fc.assert(failing, { ...fcParams(), seed })).toThrow(`Replay with FC_SEED=${seed}`);
  });

  it("an async property reports the same way", async () => {
    const failing = fc.asyncProperty(fc.integer(), async (n) => n < 1000);
    await expect(fc.assert(failing, fcParams())).rejects.toThrow(/Replay with FC_SEED=-?\d+/);
  });
});
