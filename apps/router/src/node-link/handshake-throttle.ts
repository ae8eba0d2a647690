import { TokenBucket } from "@phonework/runtime";

// A token bucket for node handshakes. After a router restart every host comes back at once;
// past the rate, hosts get HTTP 503 with Retry-After and back off (with jitter) instead of the
// router spending its event loop on thousands of simultaneous TLS/upgrade/register handshakes.

/**
 * The bucket holds 50 ms worth of handshakes: a burst that arrives in one turn of the event loop
 * is cut at that, so no single turn spends more than a few tens of milliseconds on upgrades.
 */
const BURST_S = 0.05;

export class HandshakeThrottle extends TokenBucket {
  constructor(perSecond: number, now?: () => number) {
    super(perSecond, Math.max(1, Math.ceil(perSecond * BURST_S)), now);
  }
}
