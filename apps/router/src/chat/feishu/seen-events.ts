import { readJsonFile, writeJsonFileAtomic } from "@phonework/runtime";
import { z } from "zod";

// Event and message ids already handled, so a redelivered event (Feishu retries after ~3 s
// without an ack, and again after a restart) is dropped. Persisted with a TTL so it survives
// a router restart; expired ids are pruned on every write.

const SeenFile = z.object({ version: z.literal(1), seen: z.record(z.string(), z.number()) });

export class SeenEvents {
  private constructor(
    private readonly seen: Map<string, number>,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly persist: (entries: Record<string, number>) => void,
  ) {}

  static open(path: string, ttlMs: number, now: () => number): SeenEvents {
    const file = readJsonFile(path, SeenFile, { version: 1, seen: {} });
    return new SeenEvents(new Map(Object.entries(file.seen)), ttlMs, now, (seen) =>
      writeJsonFileAtomic(path, { version: 1, seen }),
    );
  }

  static inMemory(ttlMs: number, now: () => number): SeenEvents {
    return new SeenEvents(new Map(), ttlMs, now, () => {});
  }

  /** Records the keys; returns true if any of them was seen before (a redelivery). */
  checkAndRemember(keys: string[]): boolean {
    const now = this.now();
    const repeat = keys.some((key) => {
      const at = this.seen.get(key);
      return at !== undefined && now - at < this.ttlMs;
    });
    for (const key of keys) this.seen.set(key, now);
    for (const [key, at] of this.seen) if (now - at >= this.ttlMs) this.seen.delete(key);
    this.persist(Object.fromEntries(this.seen));
    return repeat;
  }
}
