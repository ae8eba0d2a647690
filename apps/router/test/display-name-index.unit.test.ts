import { createManualClock } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { displayNameRefusal } from "../src/registry/display-name-rule.ts";
import { NodeRegistry } from "../src/registry/node-registry.ts";

// The display-name rule looks only at the nodes the registry's name index offers. Checked against
// the rule run over every listed node, on random registries whose names share words, cases,
// separators and padding, through renames, nodes going offline and nodes forgotten; and a 10,000-node
// registry offers a newcomer only the nodes its name can clash with.

const register = (nodeId: string, displayName: string, servesUsers: string[] = []) => ({
  type: "register" as const,
  node_id: nodeId,
  display_name: displayName,
  serves_users: servesUsers,
  working_dir: "/",
  capabilities: [],
  protocol_versions: [3],
  sessions: [],
});
const socket = () => ({ close: () => {}, send: () => true });

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}

const IDS = ["home", "pc", "home-pc", "work", "work-srv", "a", "b", "lab"];
const WORDS = ["home", "HOME", "pc", "Pc", "work", "srv", "a", "b", "lab", "home-pc"];
const SEPARATORS = [" ", ":", ",", "，", "：", "  ", "-", ""];
const AUDIENCES: string[][] = [[], ["u1"], ["u2"], ["u1", "u2"]];

function randomName(r: ReturnType<typeof random>): string {
  let name = r.pick(WORDS);
  const more = Math.floor(r.next() * 3);
  for (let i = 0; i < more; i++) name += r.pick(SEPARATORS) + r.pick(WORDS);
  return r.next() < 0.2 ? ` ${name} ` : name;
}

describe("display names through the registry's name index", () => {
  it("refuses exactly what the rule over every node refuses, and offers every node a name clashes with", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = random(seed);
      const registry = new NodeRegistry(createManualClock(0));
      const connections = new Map<string, ReturnType<typeof socket>>();
      for (let step = 0; step < 40; step++) {
        const id = r.pick(IDS);
        const roll = r.next();
        const connection = connections.get(id);
        if (roll < 0.6) {
          const fresh = socket();
          connections.set(id, fresh);
          registry.attach(register(id, randomName(r), r.pick(AUDIENCES)), 3, fresh);
        } else if (roll < 0.8 && connection) {
          registry.detach(id, connection);
          connections.delete(id);
        } else if (!connection) registry.forget(id);
      }
      const everyNode = { nameCandidates: () => registry.list() };
      for (let probe = 0; probe < 40; probe++) {
        const frame = register(`new-${probe}`, randomName(r), r.pick(AUDIENCES));
        const indexed = displayNameRefusal(registry, frame, undefined);
        const overAll = displayNameRefusal(everyNode, frame, undefined);
        expect(indexed === undefined, `seed ${seed}: "${frame.display_name}"`).toBe(overAll === undefined);
        const wanted = frame.display_name.trim().toLowerCase();
        const offered = new Set(registry.nameCandidates(wanted).map((node) => node.nodeId));
        for (const node of registry.list()) {
          if (displayNameRefusal({ nameCandidates: () => [node] }, frame, undefined) === undefined) continue;
          expect(offered.has(node.nodeId), `seed ${seed}: "${wanted}" clashes with ${node.nodeId}`).toBe(
            true,
          );
        }
      }
    }
  });

  it("a forgotten or renamed node is no longer offered under its old name", () => {
    const registry = new NodeRegistry(createManualClock(0));
    const first = socket();
    registry.attach(register("lab", "Home PC"), 3, first);
    expect(displayNameRefusal(registry, register("x", "home pc files"), undefined)).toContain('"Home PC"');
    registry.attach(register("lab", "Lab box"), 3, socket()); // renamed on its next registration
    expect(displayNameRefusal(registry, register("x", "home pc files"), undefined)).toBeUndefined();
    expect(registry.nameCandidates("lab box").map((node) => node.nodeId)).toEqual(["lab"]);
    expect(registry.nameCandidates("home pc")).toEqual([]);
  });

  it("nodes the registry drops leave the index: forgotten, and unpaired ones past the offline bound", () => {
    const registry = new NodeRegistry(createManualClock(0));
    const connections = Array.from({ length: 150 }, (_, i) => {
      const connection = socket();
      registry.attach(register(`junk-${i}`, `Junk ${i}`), 3, connection);
      return connection;
    });
    for (const [i, connection] of connections.entries()) registry.detach(`junk-${i}`, connection);
    expect(registry.size).toEqual({ listed: 100, named: 100 }); // the 50 oldest offline evicted from both
    expect(registry.nameCandidates("junk 0")).toEqual([]);
    expect(registry.nameCandidates("junk 149").map((node) => node.nodeId)).toEqual(["junk-149"]);
    expect(registry.forget("junk-149")).toBe(true);
    expect(registry.nameCandidates("junk 149")).toEqual([]);
    expect(registry.nameCandidates("junk")).toHaveLength(99);
    expect(registry.size).toEqual({ listed: 99, named: 99 });
  });

  it("with 10,000 nodes a newcomer is offered only the nodes its name can clash with", () => {
    const registry = new NodeRegistry(createManualClock(0));
    for (let i = 0; i < 10_000; i++) registry.attach(register(`host-${i}`, `Host ${i}`), 3, socket());
    expect(registry.nameCandidates("host 77").map((node) => node.nodeId)).toEqual(["host-77"]);
    expect(registry.nameCandidates("host 77 files").map((node) => node.nodeId)).toEqual(["host-77"]);
    expect(registry.nameCandidates("host")).toHaveLength(10_000); // every name begins with it
    expect(displayNameRefusal(registry, register("other", "Host 77"), undefined)).toContain("host-77");
    expect(displayNameRefusal(registry, register("other", "Host 770"), undefined)).toContain("host-770");
    expect(displayNameRefusal(registry, register("other", "Hostel"), undefined)).toBeUndefined();
  });
});
