import { readdirSync } from "node:fs";
import { makeTempDir } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../src/agent/chat-message.ts";
import { createFileHistoryStore, trimToBudget } from "../src/agent/history-store.ts";
import { estimateTokens } from "../src/agent/token-estimate.ts";

const turn = (n: number, size = 400): ChatMessage[] => [
  { role: "user", content: `question ${n} ${"x".repeat(size)}` },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: `c${n}`, type: "function", function: { name: "t", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: `c${n}`, content: "result" },
  { role: "assistant", content: `answer ${n}` },
];

describe("history", () => {
  it("persists per user and survives a new store (host restart)", () => {
    const dir = makeTempDir();
    const first = createFileHistoryStore(dir.path, 10_000);
    first.append("ou_1", turn(1));
    first.append("weird/user id", turn(2));
    const second = createFileHistoryStore(dir.path, 10_000);
    expect(second.load("ou_1")).toEqual(turn(1));
    expect(second.load("weird/user id")).toEqual(turn(2));
    expect(readdirSync(dir.path).every((name) => /^[A-Za-z0-9_-]+\.json$/.test(name))).toBe(true);
    dir.remove();
  });

  it("names a qualified user's file readably, and picks up the file a router without adapter names left", () => {
    const dir = makeTempDir();
    const legacy = createFileHistoryStore(dir.path, 10_000);
    legacy.append("ou_old", turn(1)); // written when the router sent bare ids
    const store = createFileHistoryStore(dir.path, 10_000);
    expect(store.load("feishu:ou_old")).toEqual(turn(1));
    store.append("feishu:ou_old", turn(2));
    store.append("telegram:-100123", turn(3)); // a Telegram group
    store.append("feishu:ou/../x", turn(4)); // not safe: hashed
    const names = readdirSync(dir.path).sort();
    expect(names.slice(0, 2)).toEqual(["feishu.ou_old.json", "telegram.-100123.json"]);
    expect(names[2]).toMatch(/^u-[0-9a-f]{32}\.json$/);
    expect(names).toHaveLength(3);
    expect(createFileHistoryStore(dir.path, 10_000).load("feishu:ou_old")).toEqual([...turn(1), ...turn(2)]);
    // Taken over once: another adapter's user with the same bare id does not get it.
    expect(createFileHistoryStore(dir.path, 10_000).load("telegram:ou_old")).toEqual([]);
    dir.remove();
  });

  it("trims whole oldest turns to the budget, never splitting a tool call from its result", () => {
    const messages = [...turn(1), ...turn(2), ...turn(3)];
    const trimmed = trimToBudget(messages, 200);
    expect(trimmed[0]).toMatchObject({ role: "user" });
    expect(trimmed).toEqual(turn(3));
    expect(trimToBudget(messages, 100_000)).toEqual(messages);
  });

  it("keeps the latest turn even when it alone is over budget", () => {
    expect(trimToBudget(turn(1, 10_000), 10)).toEqual(turn(1, 10_000));
  });

  it("counts CJK characters as a token each", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateTokens("有哪些新特性")).toBe(6);
  });
});
