import { describe, expect, it } from "vitest";
import { reconnectDelay, retryAfterDelay } from "../src/link/backoff.ts";

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

describe("retryAfterDelay: a router's 503 + Retry-After", () => {
  const policy = { baseMs: 500, maxMs: 30_000 };
  it("waits at least the seconds it names, spread over up to twice that, capped by the policy", () => {
    expect(retryAfterDelay("1", policy, () => 0)).toBe(1000);
    expect(retryAfterDelay("1", policy, () => 0.999)).toBe(1999);
    expect(retryAfterDelay(["2"], policy, () => 0.5)).toBe(3000);
    expect(retryAfterDelay("3600", policy, () => 0.5)).toBe(30_000);
  });

  it("a missing, dated or hostile header leaves the usual backoff in charge", () => {
    for (const header of [
      undefined,
      "",
      "soon",
      "-5",
      "1.5",
      "Wed, 21 Oct 2026 07:28:00 GMT",
      "9".repeat(400),
    ])
      expect(retryAfterDelay(header, policy, () => 0.5)).toBeUndefined();
  });
});
