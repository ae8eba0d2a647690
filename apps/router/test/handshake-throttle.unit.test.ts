import { describe, expect, it } from "vitest";
import { HandshakeThrottle } from "../src/node-link/handshake-throttle.ts";

// The handshake token bucket with an injected clock.

function throttle(perSecond: number) {
  let now = 0;
  const bucket = new HandshakeThrottle(perSecond, () => now);
  return {
    advance: (ms: number) => {
      now += ms;
    },
    takeAll: () => {
      let taken = 0;
      while (bucket.tryTake()) taken++;
      return taken;
    },
  };
}

describe("handshake throttle", () => {
  it("admits at most 50 ms worth at once, then refills at the rate", () => {
    const t = throttle(2000);
    expect(t.takeAll()).toBe(100);
    t.advance(10);
    expect(t.takeAll()).toBe(20);
    t.advance(10_000); // a long quiet time still only fills the bucket
    expect(t.takeAll()).toBe(100);
  });

  it("a very low rate still admits one at a time", () => {
    const t = throttle(1);
    expect(t.takeAll()).toBe(1);
    t.advance(500);
    expect(t.takeAll()).toBe(0);
    t.advance(500);
    expect(t.takeAll()).toBe(1);
  });
});
