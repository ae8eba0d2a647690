import {
  appendFileSync,
  chmodSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { openStateDatabase } from "../src/state-database.ts";
import { ChannelAccess } from "../src/workspace/channel-access.ts";
import { withChannelIntake } from "../src/workspace/channel-intake.ts";
import { ChannelLog } from "../src/workspace/channel-log.ts";
import { ChatCache } from "../src/workspace/chat-cache.ts";
import { createInbox } from "../src/workspace/inbox.ts";
import { JsonLinesAppender } from "../src/workspace/jsonl-appender.ts";
import { readJsonLines } from "../src/workspace/jsonl-file.ts";
import { WorkspaceLayout } from "../src/workspace/workspace-layout.ts";

// What the host keeps between messages instead of asking the disk each time: open channel logs
// (jsonl-appender.ts, which looks at the path again at each turn of the event loop), the grants it
// has written (channel-access.ts) and the scratch directories it has made (channel-intake.ts).
// Each is checked against what others can do behind its back (delete, rotate, append to or loosen
// a log; remove a grant) and against a flood of chat ids.

const dir = makeTempDir();
afterAll(dir.remove);
let n = 0;
/** A fresh path under a directory that does not exist yet. */
const freshPath = () => join(dir.path, `chat-${++n}`, "log.jsonl");
const read = (path: string) => readFileSync(path, "utf8");
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("an appender that keeps the log open", () => {
  it("one line per value, a torn last line by someone else closed first, a whole one left alone", async () => {
    const appender = new JsonLinesAppender();
    const path = freshPath();
    appender.append(path, [{ a: 1 }]);
    await nextTurn();
    appendFileSync(path, '{"torn":');
    appender.append(path, [{ b: 2 }, "c"]);
    await nextTurn();
    appendFileSync(path, '{"whole":true}\n');
    appender.append(path, [3]);
    appender.append(path, []);
    expect(read(path)).toBe('{"a":1}\n{"torn":\n{"b":2}\n"c"\n{"whole":true}\n3\n');
    expect(readJsonLines(path)).toEqual({
      values: [{ a: 1 }, { b: 2 }, "c", { whole: true }, 3],
      unreadable: 1,
    });
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(join(path, ".."))).toBe(0o700);
    appender.close();
    // A file torn before the host started (no handle yet): the first line starts on a line of its own.
    const fresh = new JsonLinesAppender();
    appendFileSync(path, '{"torn again":');
    fresh.append(path, [4]);
    expect(read(path).endsWith('{"torn again":\n4\n')).toBe(true);
    fresh.close();
  });

  it("a log deleted, or its directory, or rotated away, is made again and the next turn's line lands in it", async () => {
    const appender = new JsonLinesAppender();
    const path = freshPath();
    appender.append(path, ["one"]);
    await nextTurn();
    rmSync(path);
    appender.append(path, ["two"]);
    expect(read(path)).toBe('"two"\n');
    await nextTurn();
    rmSync(join(path, ".."), { recursive: true });
    appender.append(path, ["three"]);
    expect(read(path)).toBe('"three"\n');
    expect(modeOf(join(path, ".."))).toBe(0o700);
    await nextTurn();
    renameSync(path, `${path}.1`);
    appender.append(path, ["four"]);
    expect(read(`${path}.1`)).toBe('"three"\n');
    expect(read(path)).toBe('"four"\n');
    await nextTurn();
    // Replaced by another file of the same size (a copy moved over it): still a different file.
    writeFileSync(`${path}.new`, '"fake"\n');
    renameSync(`${path}.new`, path);
    appender.append(path, ["five"]);
    expect(read(path)).toBe('"fake"\n"five"\n');
    appender.close();
  });

  it("a log made readable to others is made private again at the next turn's line", async () => {
    const appender = new JsonLinesAppender();
    const path = freshPath();
    appender.append(path, [1]);
    await nextTurn();
    chmodSync(path, 0o644);
    appender.append(path, [2]);
    expect(modeOf(path)).toBe(0o600);
    appender.close();
  });

  it("looks at the path once per turn: a rotation mid-turn is seen at the next turn, no line lost", async () => {
    const appender = new JsonLinesAppender();
    const path = freshPath();
    appender.append(path, ["message"]);
    // Rotated between a message and its answer in the same turn: the answer follows the message
    // into the rotated file (as it would have if the rotation came between a stat and its write).
    renameSync(path, `${path}.1`);
    appender.append(path, ["answer"]);
    expect(read(`${path}.1`)).toBe('"message"\n"answer"\n');
    await nextTurn();
    appender.append(path, ["next message"]);
    expect(read(path)).toBe('"next message"\n');
    expect(read(`${path}.1`)).toBe('"message"\n"answer"\n');
    appender.close();
  });

  it("keeps at most maxOpen files open, whatever the number of chats; after close every line still lands", () => {
    const appender = new JsonLinesAppender(3);
    const paths = Array.from({ length: 20 }, freshPath);
    for (const round of [1, 2]) for (const path of paths) appender.append(path, [round]);
    expect(appender.openFiles).toBe(3);
    appender.close();
    expect(appender.openFiles).toBe(0);
    appender.append(paths[0] as string, [3]);
    expect(appender.openFiles).toBe(0);
    for (const path of paths) expect(read(path)).toBe(path === paths[0] ? "1\n2\n3\n" : "1\n2\n");
  });
});

describe("what is remembered per chat", () => {
  it("each (adapter, chat) has its own entry, whatever the ids hold; a flood never holds more than max", () => {
    const cache = new ChatCache<number>(3);
    // One joined key (`${adapter}\0${chat}`) would make these two the same chat.
    cache.set("a", "b\0c", 1);
    cache.set("a\0b", "c", 2);
    expect([cache.get("a", "b\0c"), cache.get("a\0b", "c")]).toEqual([1, 2]);
    for (let i = 0; i < 10; i++) {
      cache.set("memory", `c${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(3);
    }
    expect(cache.get("memory", "c9")).toBe(9);
    expect(cache.get("a", "b\0c")).toBeUndefined();
    // The layout's directories stay right through a flood of chat ids bigger than its cache.
    const layout = new WorkspaceLayout(dir.path);
    const chats = Array.from({ length: 600 }, (_, i) => ({ adapter: "memory", chat: `chat-${i % 300}` }));
    for (const chat of chats)
      expect(layout.channelDir(chat)).toBe(join(dir.path, "channels", "memory", chat.chat));
  });
});

describe("grants written once", () => {
  const open = () => {
    const db = openStateDatabase(join(dir.path, `state-${++n}.db`));
    const layout = new WorkspaceLayout(join(dir.path, `ws-${n}`));
    return { db, access: new ChannelAccess(db, layout, () => 1) };
  };
  const rows = (db: ReturnType<typeof openStateDatabase>) =>
    (db.prepare("SELECT count(*) AS n FROM channel_members").get() as { n: number }).n;

  it("a grant repeated on every message writes nothing more; who may see what is read from the table", () => {
    const { db, access } = open();
    const chat = { adapter: "telegram", chat: "1" };
    access.grant("telegram:alice", chat);
    const changes = db.prepare("SELECT total_changes() AS n");
    const before = (changes.get() as { n: number }).n;
    for (let i = 0; i < 5; i++) access.grant("telegram:alice", chat);
    expect((changes.get() as { n: number }).n).toBe(before);
    expect(access.channelsOf("telegram:alice")).toEqual([chat]);
    // Taken away in the table (nothing in the host does so today): gone at once, the cache gives nothing.
    db.prepare("DELETE FROM channel_members").run();
    expect(access.channelsOf("telegram:alice")).toEqual([]);
    db.close();
  });

  it("a stranger's flood of chat ids does not grow the cache without bound: old grants are written again", () => {
    const { db, access } = open();
    // One transaction: 5,000 fsyncs would make the test slow, not the grants.
    db.transaction(() => {
      for (let i = 0; i < 5000; i++) access.grant(`u${i}`, { adapter: "memory", chat: `c${i}` });
    })();
    expect(rows(db)).toBe(5000);
    // The first grants fell out of the cache: granting again after their rows went writes them again.
    db.prepare("DELETE FROM channel_members WHERE user_id = 'u0'").run();
    access.grant("u0", { adapter: "memory", chat: "c0" });
    expect(access.channelsOf("u0")).toEqual([{ adapter: "memory", chat: "c0" }]);
    db.close();
  });
});

describe("a chat's way in, once per chat", () => {
  it("the first message makes the chat's private scratch/ and grants its sender; each message is logged, its answer too", async () => {
    const db = openStateDatabase(join(dir.path, `state-${++n}.db`));
    const layout = new WorkspaceLayout(join(dir.path, `ws-${n}`));
    const { logger } = createTestLogger();
    const access = new ChannelAccess(db, layout, () => 1);
    const log = new ChannelLog({ layout, nodeId: "laptop", displayName: "Laptop", now: () => 0, logger });
    const inbox = createInbox({ maxBytes: 1000, logger });
    const intake = withChannelIntake(
      { handle: async (request) => `echo ${request.text}` },
      { layout, inbox, log, access },
    );
    const ctx = { signal: new AbortController().signal, progress: () => {} };
    const chat = { adapter: "telegram", chat: "9" };
    for (const id of ["m1", "m2"])
      await intake.handle(
        { type: "forward", id, user_id: "telegram:bob", platform: "telegram", chat_id: "9", text: id },
        ctx,
      );
    expect(modeOf(layout.channelScratch(chat))).toBe(0o700);
    expect(access.channelsOf("telegram:bob")).toEqual([chat]);
    await log.flushed(); // written at the turn's end (jsonl-thread-writer.ts)
    const lines = readJsonLines(layout.channelLog(chat)).values as Array<{ id: string; text: string }>;
    expect(lines.map((line) => [line.id, line.text])).toEqual([
      ["m1", "m1"],
      ["m1:reply", "echo m1"],
      ["m2", "m2"],
      ["m2:reply", "echo m2"],
    ]);
    await log.close();
    db.close();
  });
});
