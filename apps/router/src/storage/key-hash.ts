// Two 32-bit hashes of a string in one pass, for the Bloom filter's probes (double hashing: probe i
// is h1 + i·h2). Not cryptographic: a collision an attacker manages to force only makes the filter
// answer "maybe", which costs the one SELECT every lookup paid before the filter. The seed is
// random per filter, so which keys collide is not fixed in advance either.
//
// Equal hashes for strings SQLite stores as the same text: better-sqlite3 writes a lone surrogate
// (a JSON id can carry one) as U+FFFD, so "a\uD800" and "a\uDBFF" are one row, and hash as U+FFFD.

/** Writes the key's two hashes into `out` (h2 odd, so probes over a power-of-two table never repeat). */
export function hashKey(key: string, seed: number, out: Int32Array): void {
  let a = seed ^ 0x811c9dc5; // FNV-1a lane
  let b = Math.imul(seed, 0x9e3779b1) ^ 0x27d4eb2f; // a multiply-xorshift lane
  const length = key.length;
  for (let i = 0; i < length; i++) {
    let c = key.charCodeAt(i);
    if ((c & 0xf800) === 0xd800) {
      // A surrogate: a high one followed by a low one is a pair (both hashed as they are); any
      // other is lone, stored (and so hashed) as U+FFFD.
      const next = i + 1 < length ? key.charCodeAt(i + 1) : 0;
      if (c < 0xdc00 && (next & 0xfc00) === 0xdc00) {
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
        b ^= b >>> 15;
        c = next;
        i++;
      } else c = 0xfffd;
    }
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  out[0] = mix(a);
  out[1] = mix(b ^ a) | 1;
}

/** murmur3's finaliser: every input bit reaches every output bit. */
function mix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x;
}
