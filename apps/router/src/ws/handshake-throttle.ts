// A token bucket for node handshakes. After a router restart every host comes back at once;
// past the rate, hosts get HTTP 503 with Retry-After and back off (with jitter) instead of the
// router spending its event loop on thousands of simultaneous TLS/upgrade/register handshakes.

/**
 * The bucket holds 50 ms worth of handshakes: a burst that arrives in one turn of the event loop
 * is cut at that, so no single turn spends more than a few tens of milliseconds on upgrades.
 */
const BURST_S = 0.05;

export class HandshakeThrottle {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, Math.ceil(perSecond * BURST_S));
    this.tokens = this.capacity;
    this.last = this.now();
  }

  /** Takes one handshake slot; false when over the rate. */
  tryTake(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
