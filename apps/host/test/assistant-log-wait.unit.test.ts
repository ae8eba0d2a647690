import type { ForwardFrame } from "@phonework/protocol";
import { systemClock } from "@phonework/runtime";
import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { createAssistant } from "../src/assistant/assistant.ts";
import type { SessionManager } from "../src/coding/session-manager.ts";
import type { HostCommand } from "../src/contracts/host-command.ts";

// A message the assistant answers waits for the chat's log lines first (after-log-writes.ts): what
// it runs may read the log. It is the user's running message while it waits, so /stop stops it.

const forward = (text: string): ForwardFrame => ({
  type: "forward",
  id: `r-${text}`,
  user_id: "telegram:bob",
  platform: "telegram",
  chat_id: "7",
  text,
});

describe("a message waiting for the chat's log lines", () => {
  it("runs only once they are written, and a /stop meanwhile stops it", async () => {
    let release: () => void = () => {};
    const written = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const runs: string[] = [];
    const look: HostCommand = {
      name: "look",
      usage: "/look",
      description: "reads the chat's log",
      run: async (_args, _request, ctx) => {
        runs.push(ctx.signal.aborted ? "stopped" : "ran");
        return runs.at(-1) as string;
      },
    };
    const assistant = createAssistant({
      nodeId: "laptop",
      model: undefined,
      tools: () => [],
      unavailableTools: {},
      commands: [look],
      // Neither is reached: no coding session is active, and /stop finds the running message first.
      sessions: { active: () => undefined, stop: () => undefined } as unknown as SessionManager,
      systemPrompt: () => "",
      maxSteps: 1,
      history: { load: () => [], append: () => {}, reset: () => 0 },
      logWrites: {
        flushed: () => {
          asked();
          return written;
        },
      },
      sendFile: async () => {},
      clock: systemClock,
      logger: createTestLogger().logger,
    });
    const ctx = { signal: new AbortController().signal, progress: () => {} };
    const answer = assistant.handle(forward("/look"), ctx);
    await waiting;
    expect(runs).toEqual([]); // not before the log's lines are written
    expect(await assistant.handle(forward("/stop"), ctx)).toBe("⏹️ Stopping your running request.");
    release();
    expect(await answer).toBe("stopped");
  });
});
