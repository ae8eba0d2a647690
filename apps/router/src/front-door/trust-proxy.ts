import { BlockList, isIP } from "node:net";
import type { TrustProxy } from "../config/trust-proxy-setting.ts";

// TRUST_PROXY: whose X-Forwarded-For the router believes. `off` (the default): nobody's, a client
// is its TCP peer. `on`: every peer's (only for a router nobody reaches but through its proxy).
// Or the proxies' addresses and CIDR ranges (`127.0.0.1,10.0.0.0/8`): the client is then the
// first address, from the right of X-Forwarded-For, that is not one of them. This is fastify's
// `trustProxy` (so `request.ip`, which the rate limits key on) and the same rule for the router's
// own checks. Connections from a trusted proxy carry everybody's: they are exempt from the
// per-address cap, which the proxy has to enforce itself.

/** The value for fastify's `trustProxy` option. */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] {
  if (trust.kind === "off") return false;
  return trust.kind === "all" ? true : trust.entries;
}

/** Whether a peer at `address` is a proxy whose forwarded addresses are believed. */
export function proxyMatcher(trust: TrustProxy): (address: string) => boolean {
  if (trust.kind !== "list") {
    const all = trust.kind === "all";
    return () => all;
  }
  const list = new BlockList();
  for (const entry of trust.entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const bare = mapped ?? address;
    const type = isIP(bare);
    return type !== 0 && list.check(bare, type === 6 ? "ipv6" : "ipv4");
  };
}

/**
 * The client behind `peer`: the peer itself unless it is a trusted proxy; then, walking
 * X-Forwarded-For from the right, the first hop that is not a trusted proxy (or the leftmost).
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: (address: string) => boolean,
): string | undefined {
  if (peer === undefined || !trusted(peer) || forwardedFor === undefined) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  let client = peer;
  for (const hop of hops.reverse()) {
    client = hop;
    if (!trusted(hop)) break;
  }
  return client;
}
