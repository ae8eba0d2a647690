import { randomFillSync } from "node:crypto";

// A UUID of version 7 (RFC 9562): the first 48 bits are the time in ms, the other 74 are random.
// Used where an id becomes a key of a database (router.db's request keys, the hosts' delivery
// ids): ids made later sort later, so a B-tree keyed by them grows at its right edge (a page or two
// per commit) instead of at a random page per row (one WAL page each). Still unguessable; it tells
// only when it was made. Not the uuid package's v7: that one keeps a 32-bit sequence counter in the
// random bits (monotonic within a millisecond), so ids made together follow from each other, and
// these ids must not.

/** Random bytes drawn for this many ids at once (one call into OpenSSL per 256, as randomUUID's cache does). */
const IDS_PER_DRAW = 256;
const pool = Buffer.alloc(16 * IDS_PER_DRAW);
let used = pool.length;
const bytes = Buffer.alloc(16);

export function timeOrderedId(now: number = Date.now()): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  pool.copy(bytes, 0, used, used + 16);
  pool.fill(0, used, used + 16); // each random byte serves one id only
  used += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70; // version 7
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
