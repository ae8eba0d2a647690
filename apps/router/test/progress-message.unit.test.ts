import { createTestLogger } from "@phonework/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { ProgressMessage } from "../src/forwarding/progress-message.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";

// One progress message per request, edited at most once per PROGRESS_INTERVAL_S.

afterEach(() => {
  vi.useRealTimers();
});

const hubFor = (chat: MemoryChatAdapter) =>
  new ChatHub([chat], {
    logger: createTestLogger().logger,
    buttons: ButtonStore.inMemory(60_000, () => Date.now()),
    retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
  });

describe("ProgressMessage", () => {
  it("sends one message, then edits it no more than once per interval, carrying every line", async () => {
    vi.useFakeTimers();
    const chat = createMemoryChatAdapter();
    const hub = hubFor(chat);
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
    const progress = new ProgressMessage(hubFor(chat), { platform: "memory", userId: "u" }, 5000, () =>
      Date.now(),
    );
    progress.add("a");
    await vi.advanceTimersByTimeAsync(0);
    progress.add("b");
    progress.finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(chat.sent[0]?.history).toEqual(["… a"]);
  });
});

describe("ProgressMessage.conclude", () => {
  async function progressShown(chat: MemoryChatAdapter) {
    const progress = new ProgressMessage(
      hubFor(chat),
      { platform: "memory", userId: "memory:u" },
      0,
      () => 0,
    );
    progress.add("working");
    await vi.waitFor(() => expect(chat.sent).toHaveLength(1));
    return progress;
  }

  it("replace: the answer takes the progress message's place", async () => {
    const chat = createMemoryChatAdapter();
    const progress = await progressShown(chat);
    const shown = await progress.conclude({ ok: true, text: "the answer" }, "replace", { replyTo: "in-1" });
    expect(shown).toEqual({ messageId: chat.sent[0]?.messageId });
    expect(chat.sent.map((m) => m.history)).toEqual([["… working", "the answer"]]);
  });

  it("replace falls back to send for an answer with buttons or longer than one message", async () => {
    const withButtons = createMemoryChatAdapter();
    await (await progressShown(withButtons)).conclude(
      { ok: true, text: "approve?", buttons: [[{ label: "Yes", command: "/approve 1" }]] },
      "replace",
      {},
    );
    expect(withButtons.sent.map((m) => m.text)).toEqual(["… working\n✅ done", "approve?"]);
    expect(withButtons.sent[1]?.buttons?.flat().map((b) => b.label)).toEqual(["Yes"]);

    const short = createMemoryChatAdapter("memory", { maxMessageLength: 100 });
    await (await progressShown(short)).conclude({ ok: false, text: "x ".repeat(120) }, "replace", {});
    expect(short.sent[0]?.text).toBe("… working\n❌ failed");
    expect(short.sent.length).toBeGreaterThan(2); // the answer, in parts of its own
  });

  it("without a progress message the answer is simply sent, as a reply", async () => {
    const chat = createMemoryChatAdapter();
    const progress = new ProgressMessage(
      hubFor(chat),
      { platform: "memory", userId: "memory:u" },
      0,
      () => 0,
    );
    await progress.conclude({ ok: true, text: "quick" }, "replace", { replyTo: "in-1" });
    expect(chat.sent.map((m) => [m.text, m.replyTo])).toEqual([["quick", "in-1"]]);
  });
});
