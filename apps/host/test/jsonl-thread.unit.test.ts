import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { ForwardFrame } from "@phonework/protocol";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/contracts/tool.ts";
import { afterLogWrites, afterLogWritesEach } from "../src/workspace/after-log-writes.ts";
import { ChannelLog } from "../src/workspace/channel-log.ts";
import { JsonLinesThread, sharedJsonLinesThread } from "../src/workspace/jsonl-thread-client.ts";
import {
  BUSY_WRITES_PER_SECOND,
  COALESCE_CHARS,
  ThreadedJsonLines,
} from "../src/workspace/jsonl-thread-writer.ts";
import { WorkspaceLayout } from "../src/workspace/workspace-layout.ts";

// The channel log's lines (jsonl-thread-writer.ts): written on the main thread at each turn's end
// while the log is quiet, then on a thread of their own: one message to the thread per hand-over
// whatever the number of lines and files (how long they gather: jsonl-thread-coalesce.unit.test.ts),
// each file's order kept, the appender's rules (torn line, rotation, replacement, private modes, at
// most maxOpen open) holding there, readers that wait for the lines (after-log-writes.ts), a failed
// write reported without the line while later ones land, a close that writes everything, and a
// thread that dies.
// The process's one thread (jsonl-thread-client.ts) for every writer but the one whose thread dies.

const dir = makeTempDir();
const logger = createTestLogger();
let writer: ThreadedJsonLines;
const failures: Array<{ path: string; code: unknown }> = [];
beforeAll(() => {
  writer = new ThreadedJsonLines({
    logger: logger.logger,
    maxOpen: 3,
    busyWritesPerSecond: 0, // the thread from the first line (the busy rule has its own test)
    onFailure: (path, error) => failures.push({ path, code: (error as NodeJS.ErrnoException).code }),
  });
});
afterAll(dir.remove);

let n = 0;
/** A fresh path under a directory that does not exist yet. */
const freshPath = () => join(dir.path, `chat-${++n}`, "log.jsonl");
const read = (path: string) => readFileSync(path, "utf8");
const modeOf = (path: string) => statSync(path).mode & 0o777;
const forward = (platform: string, chat: string, id: string, text: string): ForwardFrame => ({
  type: "forward",
  id,
  user_id: `${platform}:bob`,
  platform,
  chat_id: chat,
  text,
});

/** A writer on the process's thread that counts how often it asked for it (`started()`). */
function countingStarts(busyWritesPerSecond?: number) {
  let started = 0;
  const writer = new ThreadedJsonLines({
    logger: logger.logger,
    onFailure: () => {},
    ...(busyWritesPerSecond === undefined ? {} : { busyWritesPerSecond }),
    thread: () => {
      started++;
      return sharedJsonLinesThread();
    },
  });
  return { writer, started: () => started };
}

describe("a quiet log stays on the main thread", () => {
  it("writes a few turns' lines itself at each turn's end, and starts the thread once busy, in order", async () => {
    const { writer: quiet, started } = countingStarts();
    const path = freshPath();
    quiet.append(path, ["first"]);
    expect(existsSync(path)).toBe(false); // at the turn's end, as on the thread
    await quiet.flushed();
    expect(read(path)).toBe('"first"\n');
    expect(started()).toBe(0);
    expect(quiet.batchesSent).toBe(0);
    // BUSY_WRITES_PER_SECOND file writes within a second (here one file a turn): the thread takes over.
    for (let i = 0; i < BUSY_WRITES_PER_SECOND + 5; i++) {
      quiet.append(path, [i]);
      await nextTurn();
    }
    await quiet.flushed();
    expect(started()).toBe(1);
    expect(quiet.batchesSent).toBeGreaterThan(0);
    const lines = read(path).trimEnd().split("\n");
    expect(lines).toEqual([
      '"first"',
      ...Array.from({ length: BUSY_WRITES_PER_SECOND + 5 }, (_, i) => `${i}`),
    ]);
    await quiet.close();
  });

  it("counts each chat's lines of a turn: a busy host's few, large turns start the thread too", async () => {
    const { writer: busy, started } = countingStarts();
    const paths = Array.from({ length: BUSY_WRITES_PER_SECOND }, freshPath);
    for (const path of paths) busy.append(path, ["one turn"]);
    await busy.flushed();
    expect(started()).toBe(1); // one turn, BUSY_WRITES_PER_SECOND files
    expect(busy.batchesSent).toBe(1);
    for (const path of paths) expect(read(path)).toBe('"one turn"\n');
    await busy.close();
  });
});

describe("a turn's lines, one message to the thread", () => {
  it("many lines to many files in one turn: one batch, nothing on disk before the turn ends, each file in order", async () => {
    const paths = Array.from({ length: 10 }, freshPath);
    const before = writer.batchesSent;
    for (let i = 0; i < 5; i++) for (const path of paths) writer.append(path, [{ i }]);
    // The main thread wrote nothing: the turn's lines are still with it.
    expect(paths.filter((path) => existsSync(path))).toEqual([]);
    await writer.flushed();
    expect(writer.batchesSent - before).toBe(1);
    for (const path of paths) expect(read(path)).toBe('{"i":0}\n{"i":1}\n{"i":2}\n{"i":3}\n{"i":4}\n');
    // The next turn's lines are the next batch, after the first in every file.
    for (const path of paths) writer.append(path, ["next"]);
    writer.append(paths[0] as string, []); // nothing to write: no batch of its own
    await writer.flushed();
    expect(writer.batchesSent - before).toBe(2);
    for (const path of paths) expect(read(path).endsWith('{"i":4}\n"next"\n')).toBe(true);
    // Nothing appended since: waiting costs no batch and no message.
    await writer.flushed();
    expect(writer.batchesSent - before).toBe(2);
  });
});

describe("the appender's rules, on the thread", () => {
  it("a torn line closed first, a loosened mode made private, a rotated, replaced or deleted log made again", async () => {
    const path = freshPath();
    writer.append(path, [{ a: 1 }]);
    await writer.flushed();
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(join(path, ".."))).toBe(0o700);
    appendFileSync(path, '{"torn":');
    chmodSync(path, 0o644);
    writer.append(path, [{ b: 2 }]);
    await writer.flushed();
    expect(read(path)).toBe('{"a":1}\n{"torn":\n{"b":2}\n');
    expect(modeOf(path)).toBe(0o600);
    renameSync(path, `${path}.1`);
    writer.append(path, ["rotated"]);
    await writer.flushed();
    expect(read(path)).toBe('"rotated"\n');
    expect(read(`${path}.1`)).toBe('{"a":1}\n{"torn":\n{"b":2}\n');
    // Replaced by another file of the same size: still another file.
    writeFileSync(`${path}.new`, '"fake!!!"\n');
    renameSync(`${path}.new`, path);
    writer.append(path, ["after the copy"]);
    await writer.flushed();
    expect(read(path)).toBe('"fake!!!"\n"after the copy"\n');
    rmSync(join(path, ".."), { recursive: true });
    writer.append(path, ["made again"]);
    await writer.flushed();
    expect(read(path)).toBe('"made again"\n');
    expect(modeOf(join(path, ".."))).toBe(0o700);
    // An oversized line (a chat message is outside input) lands whole, as one line.
    const big = "x".repeat(2_000_000);
    writer.append(path, [{ big }, "after"]);
    await writer.flushed();
    expect(read(path).split("\n")).toEqual(['"made again"', JSON.stringify({ big }), '"after"', ""]);
    expect(failures).toEqual([]);
  });

  it("a flood of chats keeps at most maxOpen files open on the thread", async () => {
    const paths = Array.from({ length: 40 }, freshPath);
    for (const round of [1, 2]) {
      for (const path of paths) writer.append(path, [round]);
      await writer.flushed();
    }
    for (const path of paths) expect(read(path)).toBe("1\n2\n");
    const open = openOn(paths);
    expect(open).toBeLessThanOrEqual(3);
    expect(open).toBeGreaterThan(0); // the busiest stay open
  });
});

describe("readers wait for the lines; a failure is told and the log goes on", () => {
  // Quiet, the main thread writes at the turn's end (and a failure throws there); busy, the thread
  // writes and reports a failure in a message of its own, which `flushed()` waits for.
  it.each([
    ["quiet: on the main thread", undefined],
    ["busy: on the thread", 0],
  ])(
    "%s: a tool run in the same turn as a message's line sees it; a write that fails is logged without the line, the next lands",
    async (_mode, threadAt) => {
      const layout = new WorkspaceLayout(join(dir.path, `ws-${threadAt}`));
      const test = createTestLogger();
      const log = new ChannelLog({
        layout,
        nodeId: "laptop",
        displayName: "Laptop",
        now: () => 0,
        logger: test.logger,
        ...(threadAt === undefined ? {} : { threadAt }),
      });
      const path = layout.channelLog({ adapter: "telegram", chat: "7" });
      const readLog = defineTool({
        name: "read_log",
        description: "reads the chat's log",
        schema: z.object({}),
        execute: async () => read(path),
      });
      const [waiting] = afterLogWrites([readLog], log);
      log.received(forward("telegram", "7", "m1", "hello"), []);
      // Same turn, no wait: the line is not there yet (this is what the tools must not see).
      await expect(readLog.execute({}, {} as never)).rejects.toThrow(/ENOENT/);
      expect(await waiting?.execute({}, {} as never)).toContain('"text":"hello"');

      // The adapter's directory is a file: every write to this chat's log fails (as root too).
      mkdirSync(layout.channelsDir, { recursive: true });
      writeFileSync(join(layout.channelsDir, "slack"), "not a directory");
      log.received(forward("slack", "C1", "m2", "the secret plan"), []);
      log.received(forward("telegram", "7", "m3", "still logged"), []);
      await log.flushed();
      const warned = test.lines().filter((line) => line.msg === "could not write the channel log");
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({
        level: 40,
        path: expect.stringContaining("slack"),
        err: { code: "ENOTDIR" },
      });
      expect(JSON.stringify(test.lines())).not.toContain("the secret plan");
      expect(read(path)).toContain('"text":"still logged"');
      // Put right, the chat's next line lands, written as before (the thread, if any, did not end).
      rmSync(join(layout.channelsDir, "slack"));
      log.received(forward("slack", "C1", "m4", "again"), []);
      await log.flushed();
      expect(read(layout.channelLog({ adapter: "slack", chat: "C1" }))).toContain('"text":"again"');
      expect(test.lines().filter((line) => line.level === 50)).toEqual([]);
      await log.close();
    },
  );

  it("a tool that comes and goes (a custom tool) is wrapped once, and waits as the others do", async () => {
    let waits = 0;
    const live = afterLogWritesEach({ flushed: async () => void waits++ });
    const custom = defineTool({
      name: "custom",
      description: "loaded while the host runs",
      schema: z.object({}),
      execute: async () => "ran",
    });
    const [first] = live([custom]);
    const [again] = live([custom]);
    expect(again).toBe(first); // not made again at each message
    expect(await again?.execute({}, {} as never)).toBe("ran");
    expect(waits).toBe(1);
  });

  it("a failure the thread has written but not yet told: flushed() waits for its report", async () => {
    const thread = sharedJsonLinesThread();
    await writer.flushed();
    const before = thread.lastWritten;
    const blocked = join(dir.path, "blocked");
    writeFileSync(blocked, "a file, not a directory");
    const path = join(blocked, "chat", "log.jsonl");
    // As large as COALESCE_CHARS: handed over at the turn's end, not COALESCE_MS later (nor by a
    // flushed(), which would ask the thread for an answer).
    writer.append(path, ["lost", "x".repeat(COALESCE_CHARS)]);
    await nextTurn(); // after the turn's end: the batch is handed over
    // Held here (no message can arrive) until the thread has written the batch: its report is on the way.
    const deadline = Date.now() + 5000;
    while (thread.lastWritten === before && Date.now() < deadline) {
      // spin
    }
    expect(thread.lastWritten).toBeGreaterThan(before);
    expect(failures).toEqual([]);
    await writer.flushed();
    expect(failures).toEqual([{ path, code: "ENOTDIR" }]);
    failures.length = 0;
  });
});

/** The descriptors of this process (the thread's included) open on one of `paths`. */
function openOn(paths: readonly string[]): number {
  const wanted = new Set(paths);
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return wanted.has(readlinkSync(join("/proc/self/fd", fd)));
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

describe("close, and the thread's end", () => {
  it("close writes everything handed over and closes the writer's files; a line after it still lands; writers come and go on one thread", async () => {
    const paths = [freshPath(), freshPath()];
    for (let i = 0; i < 100; i++) for (const path of paths) writer.append(path, [i]);
    await writer.close();
    for (const path of paths) expect(read(path).trim().split("\n")).toHaveLength(100);
    expect(openOn(paths)).toBe(0);
    writer.append(paths[0] as string, ["after close"]);
    expect(read(paths[0] as string).endsWith('99\n"after close"\n')).toBe(true); // on the main thread, at once
    const thread = sharedJsonLinesThread();
    for (const round of [1, 2, 3]) {
      const again = new ThreadedJsonLines({
        logger: logger.logger,
        onFailure: () => {},
        busyWritesPerSecond: 0,
      });
      again.append(paths[1] as string, [`writer ${round}`]);
      await again.flushed(); // on the thread
      expect(again.batchesSent).toBe(1);
      await again.close();
      expect(openOn(paths)).toBe(0);
    }
    // A writer that closes before its first batch writes its lines itself: no thread started to stop.
    const { writer: closing, started } = countingStarts(0);
    closing.append(paths[1] as string, ["closing at once"]);
    await closing.close();
    expect(started()).toBe(0);
    expect(sharedJsonLinesThread()).toBe(thread); // one thread for all of them
    expect(read(paths[1] as string).endsWith('"writer 1"\n"writer 2"\n"writer 3"\n"closing at once"\n')).toBe(
      true,
    );
    expect(logger.lines().filter((line) => line.level === 50)).toEqual([]);
  });

  it("a thread that dies is said once; the log goes on, on the main thread, in order", async () => {
    // Past 2^31 batches as it dies (weeks of a busy host): what it wrote is still known written.
    const thread = new JsonLinesThread({ firstSeq: 2 ** 31 - 3 });
    const test = createTestLogger();
    const own = new ThreadedJsonLines({
      logger: test.logger,
      onFailure: () => {},
      thread: () => thread,
      busyWritesPerSecond: 0,
    });
    const path = freshPath();
    // A line every turn: whenever the thread's end is heard, the last turn's line still waits for
    // its turn's end, and must land before the lines appended after the end.
    let next = 0;
    own.append(path, [next++]);
    await own.flushed(); // the thread is up
    let died: () => void = () => {};
    const dead = new Promise<void>((resolve) => {
      died = resolve;
    });
    let dying = false;
    const tick = () => {
      own.append(path, [next++]);
      // Killed once it has written batches past 2^31 (or after 500 turns, whatever it wrote).
      if (!dying && (thread.lastWritten > 2 ** 31 + 2 || next > 500)) {
        dying = true;
        void thread.terminate().then(died);
      }
      if (thread.alive) setImmediate(tick);
    };
    setImmediate(tick);
    await dead;
    expect(thread.alive).toBe(false);
    own.append(path, [next++]); // in the turn its end was heard in
    await nextTurn(); // the last tick's turn is over
    own.append(path, [next++]);
    own.append(path, [next++]);
    await own.flushed();
    const values = read(path).trimEnd().split("\n").map(Number);
    // In order, none lost, none twice but the one batch the thread may have been killed in.
    expect(values.filter((value, i) => i > 0 && value < (values[i - 1] as number))).toEqual([]);
    expect(new Set(values).size).toBe(next);
    expect(values.length - next).toBeLessThanOrEqual(1);
    const said = test.lines().filter((line) => line.level === 50);
    expect(said).toHaveLength(1);
    expect(said[0]?.msg).toContain("channel log's thread ended");
    await own.close();
  });
});
