import { describe, expect, it } from "vitest";
import { type RoutingContext, type RoutingStep, routeMessage } from "../src/routing/routing-step.ts";

// routeMessage awaits only the steps that are asynchronous: the order and "first decision wins"
// must hold whichever kind each step is, and a failing step of either kind fails the routing.

const ctx: RoutingContext = { userId: "u1", text: "hi", nodes: [], activeNodeId: undefined };
const fallback = () => ({ kind: "reply" as const, text: "fallback" });

describe("routeMessage", () => {
  it("tries synchronous and asynchronous steps in order; the first decision wins", async () => {
    const tried: string[] = [];
    const steps: RoutingStep[] = [
      () => void tried.push("sync none"),
      async () => void tried.push("async none"),
      () => {
        tried.push("sync decides");
        return { kind: "forward", nodeId: "n1", reason: "sync" };
      },
      () => {
        tried.push("never");
        return { kind: "forward", nodeId: "n2", reason: "late" };
      },
    ];
    await expect(routeMessage(ctx, steps, fallback)).resolves.toMatchObject({ nodeId: "n1" });
    expect(tried).toEqual(["sync none", "async none", "sync decides"]);
  });

  it("waits for an asynchronous decision, and falls back when no step decides", async () => {
    const later: RoutingStep = async () => ({ kind: "forward", nodeId: "llm", reason: "llm" });
    await expect(routeMessage(ctx, [() => undefined, later], fallback)).resolves.toMatchObject({
      nodeId: "llm",
    });
    await expect(routeMessage(ctx, [() => undefined, async () => undefined], fallback)).resolves.toEqual(
      fallback(),
    );
  });

  it("rejects (never throws synchronously) when a step fails, of either kind", async () => {
    const sync: RoutingStep = () => {
      throw new Error("sync boom");
    };
    const routed = routeMessage(ctx, [sync], fallback);
    await expect(routed).rejects.toThrow("sync boom");
    await expect(
      routeMessage(ctx, [async () => Promise.reject(new Error("async boom"))], fallback),
    ).rejects.toThrow("async boom");
  });
});
