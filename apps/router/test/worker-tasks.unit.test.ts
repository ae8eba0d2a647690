import { createManualClock } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { BoundedMap } from "../src/storage/bounded-map.ts";
import { InFlightTasks } from "../src/workers/worker-tasks.ts";

// The router's in-memory tables for worker tasks are bounded: overall, per master, and with
// tasks past their ttl making room.

const task = (taskId: string, master: string, expiresAt = 1_000) => ({
  taskId,
  master,
  worker: "work-srv",
  userId: "memory:u1",
  expiresAt,
});

describe("in-flight worker tasks", () => {
  it("bounds each master's share and the whole table; expired tasks make room", () => {
    const clock = createManualClock(0);
    const tasks = new InFlightTasks({ maxTasks: 3, maxPerMaster: 2 }, () => clock.now());
    tasks.add(task("a1", "a"));
    tasks.add(task("a2", "a", 500));
    expect(tasks.hasRoom("a")).toBe(false);
    expect(tasks.hasRoom("b")).toBe(true);
    tasks.add(task("b1", "b"));
    expect(tasks.hasRoom("b")).toBe(false); // the table is full
    clock.advance(500);
    expect(tasks.hasRoom("b")).toBe(true); // a2's ttl has passed
    expect(tasks.get("a2")).toBeUndefined();
    expect(tasks.get("a1")).toBeDefined();
  });

  it("hands back and forgets every task of a worker that went offline", () => {
    const tasks = new InFlightTasks({ maxTasks: 10, maxPerMaster: 10 }, () => 0);
    tasks.add(task("a1", "a"));
    tasks.add({ ...task("a2", "a"), worker: "laptop" });
    expect(tasks.takeRunningOn("work-srv").map((t) => t.taskId)).toEqual(["a1"]);
    expect(tasks.get("a1")).toBeUndefined();
    expect(tasks.get("a2")).toBeDefined();
  });
});

describe("bounded map", () => {
  it("drops the oldest key past its size; setting a key again makes it the newest", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 3);
    map.set("c", 4);
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([3, undefined, 4]);
    expect(map.take("a")).toBe(3);
    expect(map.size).toBe(1);
  });
});
