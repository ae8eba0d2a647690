import { isIP } from "node:net";

// What one "address" is for the per-address caps and the warn-once logs. An IPv4 client behind a
// dual-stack socket shows up as ::ffff:a.b.c.d and is the same client as a.b.c.d. An IPv6 client
// usually holds a whole /64 (SLAAC, privacy addresses), so counting single IPv6 addresses would
// give one person 2^64 of them: they count by their /64.

export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, "").toLowerCase(); // a link-local zone (fe80::1%eth0)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (isIP(bare) !== 6) return bare;
  return `${expandIpv6(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros ("::1" → 0,0,0,0,0,0,0,1). */
function expandIpv6(address: string): string[] {
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // A trailing dotted quad (64:ff9b::1.2.3.4) is one part standing for two groups.
  const quad = (right.at(-1) ?? left.at(-1) ?? "").includes(".") ? 1 : 0;
  const missing = Math.max(0, 8 - left.length - right.length - quad);
  return [...left, ...Array<string>(missing).fill("0"), ...right].map(
    (group) => group.replace(/^0+(?=.)/, "") || "0",
  );
}
