import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { JsonLinesThread } from "../src/workspace/jsonl-thread-client.ts";
import { COALESCE_CHARS, ThreadedJsonLines } from "../src/workspace/jsonl-thread-writer.ts";

// On the channel log's thread, lines are gathered for COALESCE_MS (or up to COALESCE_CHARS) and
// handed over in one batch (jsonl-thread-writer.ts): many turns, one postMessage; the hand-over
// comes by itself, without keeping the process alive; `flushed()` and `close()` never wait for it;
// a thread that dies with lines gathered loses none of them and keeps their order.
// Most writers here gather for a minute (LONG): a test that passes could not have waited for it.

const dir = makeTempDir();
afterAll(dir.remove);
const logger = createTestLogger();
/** A window no test waits out: if a hand-over had waited for it, the test would time out. */
const LONG = 60_000;

let n = 0;
const freshPath = () => join(dir.path, `chat-${++n}`, "log.jsonl");
const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");
const refedTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

/** A writer on the process's thread from its first line, which it has already handed over. */
async function onThread(coalesceMs?: number): Promise<ThreadedJsonLines> {
  const writer = new ThreadedJsonLines({
    logger: logger.logger,
    onFailure: () => {},
    busyWritesPerSecond: 0,
    ...(coalesceMs === undefined ? {} : { coalesceMs }),
  });
  writer.append(freshPath(), ["up"]);
  await writer.flushed();
  expect(writer.batchesSent).toBe(1);
  return writer;
}

describe("lines gathered on the thread's side", () => {
  it("many turns' lines to several files become one batch, each file in order", async () => {
    const writer = await onThread(LONG);
    const paths = [freshPath(), freshPath(), freshPath()];
    for (let turn = 0; turn < 50; turn++) {
      for (const path of paths) writer.append(path, [turn]);
      await nextTurn();
    }
    // Fifty turns' ends passed: before, fifty batches; now none yet, and nothing on disk.
    expect(writer.batchesSent).toBe(1);
    expect(paths.filter((path) => existsSync(path))).toEqual([]);
    await writer.flushed();
    expect(writer.batchesSent).toBe(2);
    const expected = `${Array.from({ length: 50 }, (_, i) => i).join("\n")}\n`;
    for (const path of paths) expect(read(path)).toBe(expected);
    await writer.close();
  });

  it("hands them over by itself once the window has passed (not at the turn's end), and that timer keeps no process alive", async () => {
    // A window a shared, loaded machine cannot outlast between two turns (COALESCE_MS could).
    const window = 250;
    const writer = await onThread(window);
    const path = freshPath();
    const timersBefore = refedTimers();
    const started = performance.now();
    writer.append(path, ["one"]);
    expect(refedTimers()).toBe(timersBefore); // unref'd
    await nextTurn();
    writer.append(path, ["two"]);
    await nextTurn();
    expect(writer.batchesSent).toBe(1); // two turns' ends passed: nothing handed over yet
    expect(read(path)).toBe("");
    await waitFor(() => writer.batchesSent === 2, { message: "the timed hand-over" }); // nobody waits: the timer did it
    expect(performance.now() - started).toBeGreaterThanOrEqual(window - 1); // timers may round a millisecond early
    // The two turns' lines went in that one batch, written by the thread.
    await waitFor(() => read(path) === '"one"\n"two"\n', { message: "the thread's write" });
    await writer.close();
  });

  it("flushed() right after an append hands over at once: the line is in the file when it resolves", async () => {
    const writer = await onThread(LONG);
    const path = freshPath();
    for (let i = 0; i < 3; i++) {
      writer.append(path, [`line ${i}`]);
      await nextTurn();
    }
    writer.append(path, ["last, same turn as the wait"]);
    await writer.flushed(); // would time out if it waited for the minute's window
    expect(writer.batchesSent).toBe(2);
    expect(read(path)).toBe('"line 0"\n"line 1"\n"line 2"\n"last, same turn as the wait"\n');
    // What comes next gathers again, in a batch of its own.
    writer.append(path, ["after"]);
    await writer.flushed();
    expect(writer.batchesSent).toBe(3);
    expect(read(path).endsWith('"last, same turn as the wait"\n"after"\n')).toBe(true);
    await writer.close();
  });

  it("close() writes everything gathered, in order, in one hand-over; a line after it lands at once", async () => {
    const writer = await onThread(LONG);
    const path = freshPath();
    for (let i = 0; i < 100; i++) {
      writer.append(path, [i]);
      if (i % 10 === 9) await nextTurn();
    }
    await writer.close(); // would time out if it waited for the window
    expect(writer.batchesSent).toBe(2);
    expect(read(path)).toBe(`${Array.from({ length: 100 }, (_, i) => i).join("\n")}\n`);
    writer.append(path, ["after close"]);
    expect(read(path).endsWith('99\n"after close"\n')).toBe(true);
  });

  it("a turn that reaches COALESCE_CHARS is handed over at its end, without a wait; a huge line alone too", async () => {
    const writer = await onThread(LONG);
    const path = freshPath();
    const half = "h".repeat(COALESCE_CHARS / 2);
    writer.append(path, [half]);
    await nextTurn();
    expect(writer.batchesSent).toBe(1); // half the bound: still gathering
    writer.append(path, [half]); // the bound reached (with the quotes and newlines)
    expect(writer.batchesSent).toBe(1); // not mid-turn: the turn's lines stay together
    await nextTurn();
    expect(writer.batchesSent).toBe(2);
    await waitFor(() => read(path).length > COALESCE_CHARS, { message: "the thread's write" }); // nobody waited
    expect(read(path)).toBe(`"${half}"\n"${half}"\n`);
    // An outsized message (outside input) goes at its turn's end too, whole, after what came before.
    const huge = "x".repeat(2_000_000);
    writer.append(path, [{ huge }]);
    await nextTurn();
    expect(writer.batchesSent).toBe(3);
    await writer.flushed();
    expect(
      read(path)
        .split("\n")
        .map((line) => line.length),
    ).toEqual([COALESCE_CHARS / 2 + 2, COALESCE_CHARS / 2 + 2, JSON.stringify({ huge }).length, 0]);
    await writer.close();
  });

  it("a thread killed with lines gathered and not handed over: every line lands once, in order", async () => {
    const thread = new JsonLinesThread();
    const test = createTestLogger();
    const writer = new ThreadedJsonLines({
      logger: test.logger,
      onFailure: () => {},
      busyWritesPerSecond: 0,
      coalesceMs: LONG,
      thread: () => thread,
    });
    const path = freshPath();
    let next = 0;
    writer.append(path, [next++]);
    await writer.flushed(); // the thread is up and wrote batch 1
    for (let turn = 0; turn < 5; turn++) {
      writer.append(path, [next++, next++]);
      await nextTurn();
    }
    void writer.flushed(); // a second batch handed over (the thread writes it before it is killed)
    for (let turn = 0; turn < 5; turn++) {
      writer.append(path, [next++]);
      await nextTurn();
    }
    expect(writer.batchesSent).toBe(2);
    await thread.terminate();
    await waitFor(() => !thread.alive, { message: "the thread's end" });
    writer.append(path, [next++]); // after its end: on the main thread, after the gathered lines
    await writer.flushed();
    const values = read(path).trimEnd().split("\n").map(Number);
    expect(values).toEqual(Array.from({ length: next }, (_, i) => i));
    const said = test.lines().filter((line) => line.level === 50);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ unwrittenBatches: expect.any(Number) });
    await writer.close();
  });
});
