import type { Logger } from "@phonework/runtime";
import { BoundedMap } from "../storage/bounded-map.ts";
import { addressKey } from "./address-key.ts";

// Refusals at the front door are logged at warn once per address (per window), not once per
// attempt: one script making thousands of attempts a second would otherwise fill the log as fast as
// it fills sockets. The set of addresses already logged is bounded; an address pushed out of it, or
// back after the window, is logged again with the count of its refusals left unlogged meanwhile.

export interface RefusalLogOptions {
  windowMs: number;
  /** Addresses remembered at most; the oldest is forgotten first. */
  maxAddresses: number;
  now: () => number;
}

/** An hour, and ten thousand addresses (well under a megabyte). */
export const REFUSAL_LOG_DEFAULTS = { windowMs: 3_600_000, maxAddresses: 10_000 } as const;

export class RefusalLog {
  private readonly seen: BoundedMap<string, { at: number; unlogged: number }>;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly options: RefusalLogOptions,
  ) {
    this.seen = new BoundedMap(options.maxAddresses);
  }

  /** One refusal of `address`; logged if it is the first from there within the window. */
  refused(address: string | undefined, fields: Record<string, unknown> = {}): void {
    const key = address ? addressKey(address) : "unknown";
    const now = this.options.now();
    const last = this.seen.get(key);
    if (last && now - last.at < this.options.windowMs) {
      last.unlogged++;
      return;
    }
    this.seen.set(key, { at: now, unlogged: 0 });
    const unlogged = last?.unlogged ? { unloggedSinceLast: last.unlogged } : {};
    this.logger.warn({ ip: address, ...fields, ...unlogged }, this.message);
  }
}
