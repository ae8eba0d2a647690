import { WireError } from "@phonework/protocol";
import { describe, expect, it } from "vitest";
import { PendingRequests } from "../src/rpc/pending-requests.ts";

describe("PendingRequests", () => {
  it("settles each request exactly once, by its answer", async () => {
    const table = new PendingRequests<string>("n1");
    const answer = table.wait("a", { timeoutMs: 1000 });
    expect(table.resolve("a", "done")).toBe(true);
    expect(table.resolve("a", "again")).toBe(false);
    await expect(answer).resolves.toBe("done");
    expect(table.size).toBe(0);
  });

  it("times out with TIMEOUT and calls onTimeout", async () => {
    const table = new PendingRequests<string>("n1");
    let timedOut = false;
    const answer = table.wait("a", { timeoutMs: 10, onTimeout: (id) => (timedOut = id === "a") });
    await expect(answer).rejects.toMatchObject({ code: "TIMEOUT", nodeId: "n1" });
    expect(timedOut).toBe(true);
  });

  it("is cancelled at once by a signal already aborted", async () => {
    const table = new PendingRequests<string>("n1");
    const answer = table.wait("a", { timeoutMs: 1000, signal: AbortSignal.abort() });
    await expect(answer).rejects.toMatchObject({ code: "CANCELLED" });
    expect(table.size).toBe(0);
  });

  it("lets go of the signal once settled: a later abort cancels nothing", async () => {
    const table = new PendingRequests<string>("n1");
    const controller = new AbortController();
    const first = table.wait("a", { timeoutMs: 1000, signal: controller.signal });
    table.resolve("a", "done");
    await expect(first).resolves.toBe("done");
    const second = table.wait("a", { timeoutMs: 1000 }); // the same id again (a redelivery)
    controller.abort();
    expect(table.has("a")).toBe(true);
    table.resolve("a", "again");
    await expect(second).resolves.toBe("again");
  });

  it("is cancelled by its AbortSignal", async () => {
    const table = new PendingRequests<string>("n1");
    const controller = new AbortController();
    const answer = table.wait("a", { timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    await expect(answer).rejects.toMatchObject({ code: "CANCELLED" });
  });

  it("fails everything at once when the socket closes", async () => {
    const table = new PendingRequests<string>("n1");
    const answers = ["a", "b", "c"].map((id) => table.wait(id, { timeoutMs: 60_000 }));
    table.rejectAll(() => new WireError("NODE_OFFLINE", "gone", "n1"));
    for (const answer of answers) await expect(answer).rejects.toMatchObject({ code: "NODE_OFFLINE" });
    expect(table.size).toBe(0);
  });

  it("passes progress to the request's listener", () => {
    const table = new PendingRequests<string>("n1");
    const lines: string[] = [];
    void table.wait("a", { timeoutMs: 1000, onProgress: (line) => lines.push(line) });
    expect(table.progress("a", "step 1")).toBe(true);
    expect(table.progress("zzz", "lost")).toBe(false);
    expect(lines).toEqual(["step 1"]);
    table.resolve("a", "");
  });
});
