import { createManualClock } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { NodeRegistry } from "../src/registry/node-registry.ts";

// The registry forgets offline nodes that no pairing keeps, beyond a bound: junk registrations
// (shared-secret nodes under ever new ids) cannot grow the router's memory.

const register = (nodeId: string) => ({
  type: "register" as const,
  node_id: nodeId,
  display_name: nodeId,
  serves_users: [],
  working_dir: "/",
  capabilities: [],
  protocol_versions: [3],
  sessions: [],
});
const socket = () => ({ close: () => {}, send: () => true });

describe("node registry bounds", () => {
  it("keeps only the 100 most recently offline unpaired nodes; a node back online is no longer counted", () => {
    const clock = createManualClock(0);
    const registry = new NodeRegistry(clock);
    const connections = new Map<string, ReturnType<typeof socket>>();
    for (let i = 0; i < 150; i++) {
      const id = `junk-${i}`;
      const connection = socket();
      connections.set(id, connection);
      registry.attach(register(id), 2, connection);
    }
    // junk-0 goes offline first, then comes back: it must not be pruned as "oldest offline".
    registry.detach("junk-0", connections.get("junk-0") as ReturnType<typeof socket>);
    registry.attach(register("junk-0"), 2, socket());
    for (let i = 1; i < 150; i++) {
      clock.advance(1);
      registry.detach(`junk-${i}`, connections.get(`junk-${i}`) as ReturnType<typeof socket>);
    }
    const offline = registry
      .list()
      .filter((n) => n.status === "offline")
      .map((n) => n.nodeId);
    expect(offline).toHaveLength(100);
    expect(offline).toEqual(Array.from({ length: 100 }, (_, i) => `junk-${i + 50}`));
    expect(registry.get("junk-0")?.status).toBe("online");
  });
});
