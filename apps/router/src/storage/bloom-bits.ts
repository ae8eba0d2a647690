// A Bloom filter of a fixed size: "certainly not added" or "maybe added". It takes a key's two
// hashes (key-hash.ts) rather than the key, so a lookup over several filters hashes the key once.
//
// 16 bits a key at capacity and 8 probes: about 0.06 % false positives when full, fewer before. A
// key not added usually stops at the first probe (fewer than 40 % of the bits are set when full).

const BITS_PER_KEY = 16;
const PROBES = 8;

export class BloomBits {
  private readonly words: Int32Array;
  /** The table's size in bits is a power of two: a probe's position is a mask, not a division. */
  private readonly mask: number;

  /** Room for `capacity` keys at the designed rate (rounded up to a power of two bits). */
  constructor(capacity: number) {
    let bits = 64;
    while (bits < capacity * BITS_PER_KEY) bits *= 2;
    this.words = new Int32Array(bits >>> 5);
    this.mask = bits - 1;
  }

  add(h1: number, h2: number): void {
    let at = h1;
    for (let i = 0; i < PROBES; i++) {
      const bit = at & this.mask;
      this.words[bit >>> 5] = (this.words[bit >>> 5] as number) | (1 << (bit & 31));
      at = (at + h2) | 0;
    }
  }

  /** False only if the key's hashes were never added. */
  has(h1: number, h2: number): boolean {
    let at = h1;
    for (let i = 0; i < PROBES; i++) {
      const bit = at & this.mask;
      if (((this.words[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
      at = (at + h2) | 0;
    }
    return true;
  }

  get bytes(): number {
    return this.words.byteLength;
  }
}
