// A token bucket for node handshakes. After a router restart every host comes back at once;
// past the rate, hosts get HTTP 503 with Retry-After and back off (with jitter) instead of the
// router spending its event loop on thousands of simultaneous TLS/upgrade/register handshakes.

export class HandshakeThrottle {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.last = this.now();
  }

  /** Takes one handshake slot; false when over the rate. */
  tryTake(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
