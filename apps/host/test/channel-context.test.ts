import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../src/model/chat-message.ts";
import { trimToBudget } from "../src/model/context-window.ts";
import { estimateTokens } from "../src/model/token-estimate.ts";
import { ChannelContexts, MessageLine, SessionLine, WindowLine } from "../src/workspace/channel-context.ts";
import { WorkspaceLayout } from "../src/workspace/workspace-layout.ts";
import { onCleanup } from "./support.ts";

// Each chat's context.jsonl: its session and message lines, only ever appended to, so
// trimming and /new-context lose nothing from disk; per-user history files from before the
// workspace are taken over once.

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

function setup(maxTokens = 10_000) {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const layout = new WorkspaceLayout(join(dir.path, "workspace"));
  const legacyDir = join(dir.path, "history");
  const open = (budget = maxTokens) =>
    new ChannelContexts({
      layout,
      maxTokens: budget,
      modelId: "glm-4",
      legacyDir,
      now: () => Date.parse("2026-11-23T10:00:00Z"),
      logger: createTestLogger().logger,
    });
  const owner = (chatId: string, userId = "telegram:1", platform = "telegram") => ({
    userId,
    chatId,
    platform,
  });
  const file = (adapter: string, chat: string) => layout.channelContext({ adapter, chat });
  const lines = (path: string) =>
    readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  return { dir: dir.path, layout, legacyDir, open, owner, file, lines };
}

describe("a chat's context.jsonl", () => {
  it("is a session line, then one message line per message; a restart continues it", () => {
    const s = setup();
    s.open().append(s.owner("1"), turn(1));
    s.open().append(s.owner("-100123", "telegram:2"), turn(2)); // a group: its own file
    const [session, ...messages] = s.lines(s.file("telegram", "1"));
    expect(SessionLine.parse(session)).toMatchObject({ provider: "openai-compatible", modelId: "glm-4" });
    expect(session.timestamp).toBe("2026-11-23T10:00:00.000Z");
    expect(messages.map((line) => MessageLine.parse(line).message)).toEqual(turn(1));
    expect(Object.keys(messages[0])).toEqual(["type", "timestamp", "message"]);
    const restarted = s.open();
    expect(restarted.load(s.owner("1"))).toEqual(turn(1));
    expect(restarted.load(s.owner("-100123", "telegram:3"))).toEqual(turn(2)); // the chat's, whoever asks
    restarted.append(s.owner("1"), turn(3));
    expect(s.open().load(s.owner("1"))).toEqual([...turn(1), ...turn(3)]);
    expect(s.lines(s.file("telegram", "1")).filter((l) => l.type === "session")).toHaveLength(1);
    // Private to the owner, like everything under DATA_DIR.
    expect(statSync(s.file("telegram", "1")).mode & 0o777).toBe(0o600);
    expect(statSync(s.layout.channelDir({ adapter: "telegram", chat: "1" })).mode & 0o777).toBe(0o700);
  });

  it("a chat id that tries to name a path stays one directory under channels/<adapter>/", () => {
    const s = setup();
    s.open().append(s.owner("../../../etc"), turn(1));
    s.open().append({ userId: "x", chatId: "c1", platform: "../evil" }, turn(2));
    const adapters = readdirSync(join(s.layout.channelsDir)).sort();
    expect(adapters).toHaveLength(2);
    expect(adapters[0]).toMatch(/^_evil~[0-9a-f]{16}$/);
    expect(adapters[1]).toBe("telegram");
    expect(readdirSync(join(s.layout.channelsDir, "telegram"))[0]).toMatch(/^_etc~[0-9a-f]{16}$/);
    expect(existsSync(join(s.dir, "etc"))).toBe(false);
  });

  it("trimming to the budget keeps every message on disk and records where the window starts", () => {
    const s = setup(250);
    const store = s.open();
    for (let n = 1; n <= 5; n++) store.append(s.owner("1"), turn(n));
    expect(store.load(s.owner("1"))).toEqual(turn(5));
    const lines = s.lines(s.file("telegram", "1"));
    expect(lines.filter((l) => l.type === "message").map((l) => l.message)).toEqual(
      [1, 2, 3, 4, 5].flatMap((n) => turn(n)),
    );
    const windows = lines.filter((l) => l.type === "window").map((l) => WindowLine.parse(l).start);
    expect(windows.at(-1)).toBe(16);
    expect(windows).toEqual([...windows].sort((a, b) => a - b)); // only ever moves forward
    // A restart sees the same window; a bigger budget does not bring trimmed turns back by surprise.
    expect(s.open().load(s.owner("1"))).toEqual(turn(5));
    expect(s.open(100_000).load(s.owner("1"))).toEqual(turn(5));
    // A lowered budget trims at load.
    store.append(s.owner("1"), turn(6, 10));
    expect(s.open(10).load(s.owner("1"))).toEqual(turn(6, 10));
  });

  it("/new-context starts afresh with a new session line; the old messages stay in the file", () => {
    const s = setup();
    const store = s.open();
    store.append(s.owner("1"), turn(1));
    expect(store.reset(s.owner("1"))).toBe(4);
    expect(store.load(s.owner("1"))).toEqual([]);
    store.append(s.owner("1"), turn(2));
    expect(s.open().load(s.owner("1"))).toEqual(turn(2));
    const lines = s.lines(s.file("telegram", "1"));
    expect(lines.map((l) => l.type)).toEqual([
      "session",
      ...Array(4).fill("message"),
      "session",
      ...Array(4).fill("message"),
    ]);
    expect(lines[0].id).not.toBe(lines[5].id);
    expect(s.open().reset(s.owner("1"))).toBe(4);
    expect(s.open().reset(s.owner("2"))).toBe(0);
  });

  it("a torn last line (a crash mid-write) is skipped, and the next append starts on a line of its own", () => {
    const s = setup();
    s.open().append(s.owner("1"), turn(1));
    appendFileSync(s.file("telegram", "1"), '{"type":"message","timestamp":"2026-11-23T1');
    const logs = createTestLogger();
    const store = new ChannelContexts({
      layout: s.layout,
      maxTokens: 10_000,
      modelId: "m",
      legacyDir: s.legacyDir,
      now: Date.now,
      logger: logs.logger,
    });
    expect(store.load(s.owner("1"))).toEqual(turn(1));
    store.append(s.owner("1"), turn(2));
    expect(s.open().load(s.owner("1"))).toEqual([...turn(1), ...turn(2)]);
    expect(logs.lines().some((e) => e.msg === "context lines skipped: not readable")).toBe(true);
  });

  it("a user's history file from before the workspace moves into their first chat, whole, and is kept as .bak", () => {
    const s = setup(250);
    mkdirSync(s.legacyDir);
    const old = [...turn(1), ...turn(2), ...turn(3)];
    writeFileSync(join(s.legacyDir, "telegram.1.json"), JSON.stringify({ version: 1, messages: old }));
    // Written by a router from before adapters were named: bare ids.
    writeFileSync(join(s.legacyDir, "ou_old.json"), JSON.stringify({ version: 1, messages: turn(7) }));
    writeFileSync(join(s.legacyDir, "ou_bad.json"), "{ not json");
    const store = s.open();
    expect(store.load(s.owner("1"))).toEqual(turn(3)); // the window, within the budget
    const onDisk = s.lines(s.file("telegram", "1")).filter((l) => l.type === "message");
    expect(onDisk.map((l) => l.message)).toEqual(old); // every turn kept
    expect(readdirSync(s.legacyDir)).toContain("telegram.1.json.bak");
    expect(readdirSync(s.legacyDir)).not.toContain("telegram.1.json");
    // Taken over once: the user's next chat starts empty.
    expect(store.load(s.owner("-100", "telegram:1"))).toEqual([]);
    expect(s.open().load({ userId: "feishu:ou_old", chatId: "oc_1", platform: "feishu" })).toEqual(turn(7));
    // Another adapter's user with the same bare id does not get it again.
    expect(s.open().load({ userId: "slack:ou_old", chatId: "D1", platform: "slack" })).toEqual([]);
    // An unreadable file gives an empty context; the file is set aside, not lost.
    expect(s.open().load({ userId: "feishu:ou_bad", chatId: "oc_2", platform: "feishu" })).toEqual([]);
    expect(readFileSync(join(s.legacyDir, "ou_bad.json.bak"), "utf8")).toBe("{ not json");
  });
});

describe("the model's window", () => {
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
