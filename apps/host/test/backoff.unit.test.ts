import { describe, expect, it } from "vitest";
import { reconnectDelay } from "../src/link/backoff.ts";

describe("reconnectDelay", () => {
  const policy = { baseMs: 500, maxMs: 30_000 };

  it("grows exponentially up to the cap (at the top of the jitter range)", () => {
    const top = () => 1;
    expect([0, 1, 2, 3, 6, 7, 20].map((n) => reconnectDelay(n, policy, top))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000, 30_000,
    ]);
  });

  it("spreads delays over the whole range (full jitter), never below 50 ms", () => {
    expect(reconnectDelay(4, policy, () => 0.5)).toBe(4000);
    expect(reconnectDelay(4, policy, () => 0)).toBe(50);
  });
});
