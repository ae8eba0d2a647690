import { join } from "node:path";
import { makeTempDir, processRunning, waitFor } from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, startHarness } from "./chat-harness.ts";

// /shell runs under the rules of other long work: /stop kills its process tree; past LONG_TURN_S
// it continues as a background task (the user gets its id at once, the output when it ends);
// BACKGROUND_TIMEOUT_S after it started it is killed. The whole product, in-memory chat.

let dir: { path: string; remove: () => void };
let harness: ChatHarness | undefined;

beforeEach(() => {
  dir = makeTempDir();
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  dir.remove();
});

async function start(overrides: Record<string, unknown> = {}): Promise<ChatHarness> {
  harness = await startHarness({ DATA_DIR: join(dir.path, "data"), WORKING_DIR: dir.path, ...overrides });
  return harness;
}

const TASK_ID = /continues as task #([0-9a-f]{6})\./;

describe("/shell", () => {
  it("/stop ends a running /shell within seconds and leaves no process; the next message then runs", async () => {
    const h = await start();
    h.chat.receive({ userId: "me", text: "/shell sleep 31.4159" });
    h.chat.receive({ userId: "me", text: "/shell echo after the stop" });
    await waitFor(() => processRunning("sleep 31.4159"), { message: "the sleep to start" });
    const stopped = Date.now();
    expect(await h.ask("/stop")).toBe("⏹️ Stopping your running request.");
    await waitFor(() => h.texts().includes("$ sleep 31.4159\ncancelled"), { message: "the /shell's answer" });
    await waitFor(() => !processRunning("sleep 31.4159"), { message: "no process left" });
    expect(Date.now() - stopped).toBeLessThan(5000);
    await waitFor(() => h.texts().some((t) => t.startsWith("$ echo after the stop")));
    expect(h.texts()).toEqual([
      "⏹️ Stopping your running request.",
      "$ sleep 31.4159\ncancelled",
      "$ echo after the stop\nexit code 0\nstdout:\n```\nafter the stop\n```",
    ]);
  });

  it("past LONG_TURN_S: the task id at once, the line moves on, then the completion with the output", async () => {
    const h = await start({ LONG_TURN_S: 1 });
    h.chat.receive({ userId: "me", text: "/shell sleep 2.7182 && echo finished-late" });
    const moved = await waitFor(() => h.texts().find((t) => TASK_ID.test(t)), { message: "the task id" });
    expect(moved).toMatch(
      /^⏳ This is taking a while \(over 1s\), so it continues as task #[0-9a-f]{6}\. I'll send the answer when it's done; \/tasks shows it\.$/,
    );
    const id = TASK_ID.exec(moved)?.[1];
    expect(await h.ask("/tasks")).toMatch(
      new RegExp(`⏳ #${id} running \\ds — sleep 2\\.7182 && echo finished-late`),
    );
    const done = await waitFor(() => h.texts().find((t) => t.startsWith(`✅ Task #${id} done`)), {
      message: "the task's completion",
    });
    expect(done).toMatch(
      new RegExp(
        `^✅ Task #${id} done \\(\\ds\\)\nsleep 2\\.7182 && echo finished-late\n\nexit code 0\nstdout:\n\`\`\`\nfinished-late\n\`\`\`$`,
      ),
    );
  });

  it("a /shell in the background is killed at BACKGROUND_TIMEOUT_S, process tree and all", async () => {
    const h = await start({ LONG_TURN_S: 0.3, BACKGROUND_TIMEOUT_S: 1.5 });
    const moved = await h.ask("/shell sleep 27.1828", (t) => TASK_ID.test(t));
    const id = TASK_ID.exec(moved)?.[1];
    expect(processRunning("sleep 27.1828")).toBe(true);
    const failed = await waitFor(() => h.texts().find((t) => t.startsWith(`❌ Task #${id} failed`)), {
      message: "the task to be killed",
    });
    expect(failed).toContain("killed after 1s (BACKGROUND_TIMEOUT_S)");
    await waitFor(() => !processRunning("sleep 27.1828"), { message: "no process left" });
  });
});
