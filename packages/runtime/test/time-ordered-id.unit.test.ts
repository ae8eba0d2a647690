import { describe, expect, it } from "vitest";
import { timeOrderedId } from "../src/time-ordered-id.ts";

// Keys of databases (router.db's request keys, hosts' delivery ids): made later, they sort later
// (the B-tree grows at its right edge), and they stay unguessable UUIDs.

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("timeOrderedId", () => {
  it("is a version 7 UUID carrying its time, and ids of later milliseconds sort later", () => {
    const at = Date.UTC(2026, 10, 27, 11, 0, 0, 123);
    const ids = [at, at + 1, at + 1000, at + 86_400_000].map((now) => timeOrderedId(now));
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(ids[0]?.replaceAll("-", "").slice(0, 12) ?? "", 16)).toBe(at);
    expect([...ids].sort()).toEqual(ids);
  });

  it("ids of the same millisecond still differ (74 random bits)", () => {
    const now = Date.now();
    // Across several draws of the random pool (256 ids each): no id repeats, no random part is zero.
    const ids = new Set(Array.from({ length: 1000 }, () => timeOrderedId(now)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id.replaceAll("-", "").slice(12)).not.toMatch(/^70{3}[89ab]0{15}$/);
  });
});
