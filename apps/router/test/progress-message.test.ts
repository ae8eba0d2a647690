import { createTestLogger } from "@phonework/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { createMemoryChatAdapter } from "../src/chat/memory-adapter.ts";
import { ProgressMessage } from "../src/chat/progress-message.ts";

// One progress message per request, edited at most once per PROGRESS_INTERVAL_S.

afterEach(() => {
  vi.useRealTimers();
});

describe("ProgressMessage", () => {
  it("sends one message, then edits it no more than once per interval, carrying every line", async () => {
    vi.useFakeTimers();
    const chat = createMemoryChatAdapter();
    const hub = new ChatHub([chat], createTestLogger().logger);
    const to = { platform: "memory", userId: "u" };
    const progress = new ProgressMessage(hub, to, 5000, () => Date.now());

    progress.add("step 1");
    await vi.advanceTimersByTimeAsync(0);
    expect(chat.sent).toHaveLength(1);
    for (let i = 2; i <= 20; i++) {
      progress.add(`step ${i}`);
      await vi.advanceTimersByTimeAsync(1000); // 19 lines over 19 s
    }
    await vi.advanceTimersByTimeAsync(5000);
    const message = chat.sent[0];
    expect(chat.sent).toHaveLength(1); // never a second message
    // 20 s of updates at one edit per 5 s: the first send plus at most 4 edits (+1 for the tail).
    expect(message?.history.length).toBeLessThanOrEqual(6);
    expect(message?.history.length).toBeGreaterThanOrEqual(4);
    expect(message?.text.split("\n").at(-1)).toBe("… step 20");
    expect(message?.text.split("\n")).toHaveLength(8); // the last 8 lines
  });

  it("stops editing once finished", async () => {
    vi.useFakeTimers();
    const chat = createMemoryChatAdapter();
    const progress = new ProgressMessage(
      new ChatHub([chat], createTestLogger().logger),
      { platform: "memory", userId: "u" },
      5000,
      () => Date.now(),
    );
    progress.add("a");
    await vi.advanceTimersByTimeAsync(0);
    progress.add("b");
    progress.finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(chat.sent[0]?.history).toEqual(["… a"]);
  });
});
