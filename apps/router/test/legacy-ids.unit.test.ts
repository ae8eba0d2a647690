import { openDatabase } from "@phonework/runtime";
import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { qualifyLegacyIds } from "../src/database/legacy-ids.ts";
import { JOIN_CODES_REPLACE_MIGRATION, NODES_MIGRATION, NodeStore } from "../src/pairing/node-store.ts";
import { UserStateStore } from "../src/users/user-state-store.ts";

// A router upgraded from before adapters were named keeps its owners, shares and active nodes.

function legacyState() {
  const db = openDatabase(":memory:", { migrations: [NODES_MIGRATION, JOIN_CODES_REPLACE_MIGRATION] });
  const nodes = new NodeStore(db);
  nodes.addJoinCode("hash", "home-pc", "ou_owner", { now: 0, expiresAt: Date.now() + 60_000 });
  nodes.redeemJoinCode("hash", "home-pc", "key", "Home", 1);
  nodes.share("home-pc", "ou_friend");
  nodes.share("home-pc", "telegram:99"); // already qualified: left as it is
  const users = UserStateStore.inMemory();
  users.setActiveNode("ou_owner", "home-pc");
  users.rememberChat("ou_owner", { platform: "feishu", chat_id: "oc_chat" });
  return { db, nodes, users };
}

describe("ids stored before adapters were named", () => {
  it("are given the only chat adapter's name: owners, shares, active nodes and chats", () => {
    const { db, nodes, users } = legacyState();
    const { logger, lines } = createTestLogger();
    qualifyLegacyIds(db, users, ["feishu"], logger);
    expect(nodes.get("home-pc")?.owner).toBe("feishu:ou_owner");
    expect(nodes.get("home-pc")?.sharedWith).toEqual(["feishu:ou_friend", "telegram:99"]);
    expect(users.activeNode("feishu:ou_owner")).toBe("home-pc");
    expect(users.hasSeenChat("feishu:ou_owner", { platform: "feishu", chat_id: "feishu:oc_chat" })).toBe(
      true,
    );
    expect(users.bareIds()).toEqual([]);
    expect(lines().some((line) => line.msg === "qualified ids stored before adapters were named")).toBe(true);
    // Run again at the next start: nothing left to do, nothing doubled.
    qualifyLegacyIds(db, users, ["feishu"], logger);
    expect(nodes.get("home-pc")?.owner).toBe("feishu:ou_owner");
  });

  it("with no chat adapter they were the terminal's", () => {
    const { db, nodes, users } = legacyState();
    qualifyLegacyIds(db, users, [], createTestLogger().logger);
    expect(nodes.get("home-pc")?.owner).toBe("terminal:ou_owner");
  });

  it("with several adapters nothing is guessed: they are left, with a warning", () => {
    const { db, nodes, users } = legacyState();
    const { logger, lines } = createTestLogger();
    qualifyLegacyIds(db, users, ["feishu", "telegram"], logger);
    expect(nodes.get("home-pc")?.owner).toBe("ou_owner");
    expect(users.activeNode("ou_owner")).toBe("home-pc");
    expect(lines().some((line) => line.level === 40 && String(line.msg).includes("several adapters"))).toBe(
      true,
    );
  });
});
