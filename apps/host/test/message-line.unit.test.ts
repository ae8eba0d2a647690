import { describe, expect, it } from "vitest";
import { MessageLine } from "../src/assistant/message-line.ts";

// One user's messages on a host: one at a time in arrival order, except that messages for the
// same coding session may wait together in that session's own queue.

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Lets every queued promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("MessageLine", () => {
  it("runs a user's messages one at a time in arrival order, and other users' beside them", async () => {
    const line = new MessageLine();
    const log: string[] = [];
    const first = gate();
    const item = (name: string, wait?: Promise<void>) => ({
      joins: () => undefined,
      run: async () => {
        log.push(`start ${name}`);
        await wait;
        log.push(`end ${name}`);
        return name;
      },
    });
    const answers = [
      line.run("alice", item("a1", first.opened)),
      line.run("alice", item("a2")),
      line.run("bob", item("b1")),
    ];
    await settle();
    expect(log).toEqual(["start a1", "start b1", "end b1"]);
    first.open();
    expect(await Promise.all(answers)).toEqual(["a1", "a2", "b1"]);
    expect(log).toEqual(["start a1", "start b1", "end b1", "end a1", "start a2", "end a2"]);
  });

  it("a failed message does not stop the line", async () => {
    const line = new MessageLine();
    const failed = line.run("alice", {
      joins: () => undefined,
      run: async () => {
        throw new Error("boom");
      },
    });
    const next = line.run("alice", { joins: () => undefined, run: async () => "next" });
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("next");
  });

  it("a message for the same session's queue follows at once; anything else waits for both answers", async () => {
    const line = new MessageLine();
    const log: string[] = [];
    const turns = [gate(), gate()];
    const sessionTurn = (index: number) => ({
      joins: () => "session-1",
      run: async (queuedIn: (queue: string) => void) => {
        log.push(`queued turn ${index}`);
        queuedIn("session-1");
        await turns[index]?.opened;
        return `turn ${index}`;
      },
    });
    const answers = [
      line.run("alice", sessionTurn(0)),
      line.run("alice", sessionTurn(1)),
      line.run("alice", {
        joins: () => undefined, // a command never joins a session's queue
        run: async () => {
          log.push("command");
          return "command";
        },
      }),
    ];
    await settle();
    expect(log).toEqual(["queued turn 0", "queued turn 1"]);
    turns[0]?.open();
    await settle();
    expect(log).toEqual(["queued turn 0", "queued turn 1"]);
    turns[1]?.open();
    expect(await Promise.all(answers)).toEqual(["turn 0", "turn 1", "command"]);
    expect(log.at(-1)).toBe("command");
  });

  it("a message for another queue than the one ahead of it waits for that one's answer", async () => {
    const line = new MessageLine();
    const log: string[] = [];
    const turn = gate();
    const answers = [
      line.run("alice", {
        joins: () => "session-1",
        run: async (queuedIn) => {
          queuedIn("session-1");
          await turn.opened;
          log.push("session-1 answered");
          return "one";
        },
      }),
      line.run("alice", {
        joins: () => "session-2", // the user switched sessions meanwhile
        run: async () => {
          log.push("session-2 started");
          return "two";
        },
      }),
    ];
    await settle();
    expect(log).toEqual([]);
    turn.open();
    expect(await Promise.all(answers)).toEqual(["one", "two"]);
    expect(log).toEqual(["session-1 answered", "session-2 started"]);
  });
});
