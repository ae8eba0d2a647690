import { describe, expect, it } from "vitest";
import { KeyedQueue } from "../src/keyed-queue.ts";

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe("KeyedQueue", () => {
  it("runs one task at a time per key, in order, and keys in parallel", async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const gate = deferred();
    const a1 = queue.run("a", async () => {
      log.push("a1 start");
      await gate.promise;
      log.push("a1 end");
    });
    const a2 = queue.run("a", async () => {
      log.push("a2");
    });
    const b1 = queue.run("b", async () => {
      log.push("b1");
    });
    await b1;
    expect(log).toEqual(["a1 start", "b1"]);
    gate.resolve();
    await Promise.all([a1, a2]);
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("keeps going after a task fails", async () => {
    const queue = new KeyedQueue();
    await expect(queue.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(queue.run("a", async () => "next")).resolves.toBe("next");
  });

  it("forgets a key once its line is empty, and not before", async () => {
    const queue = new KeyedQueue();
    const gate = deferred();
    const first = queue.run("a", () => gate.promise);
    const second = queue.run("a", async () => "second");
    await Promise.resolve();
    expect(queue.size).toBe(1);
    gate.resolve();
    await first;
    const third = queue.run("a", async () => "third"); // queued behind the second, not beside it
    await expect(second).resolves.toBe("second");
    await expect(third).resolves.toBe("third");
    await Promise.resolve();
    expect(queue.size).toBe(0);
    await expect(queue.run("b", async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await Promise.resolve();
    expect(queue.size).toBe(0);
  });
});
