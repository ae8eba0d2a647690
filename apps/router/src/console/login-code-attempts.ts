import { BoundedMap } from "../storage/bounded-map.ts";
import { tokenHash } from "./secret-token.ts";

// Sign-in attempts counted per login code, from whatever address they come: the per-address limit
// alone is no bound for someone with many addresses (or, behind a proxy that appends to
// X-Forwarded-For, someone who writes their own). Past its share a code is burned. Only hashes are
// kept, and only so many: the oldest counts are forgotten first (the codes expire anyway).

export class LoginCodeAttempts {
  private readonly tried: BoundedMap<string, number>;

  constructor(
    private readonly perCode: number,
    maxCodes = 10_000,
  ) {
    this.tried = new BoundedMap(maxCodes);
  }

  /** Counts an attempt with `code`: "ok" within its share, "over" past it ("burn" the first time past). */
  count(code: string): "ok" | "burn" | "over" {
    const key = tokenHash(code);
    const tried = (this.tried.get(key) ?? 0) + 1;
    this.tried.set(key, tried);
    if (tried <= this.perCode) return "ok";
    return tried === this.perCode + 1 ? "burn" : "over";
  }
}
