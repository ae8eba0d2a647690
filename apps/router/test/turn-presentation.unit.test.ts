import type { ForwardFrame } from "@phonework/protocol";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { detailsCommand } from "../src/commands/details-command.ts";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { RequestLog } from "../src/delivery/request-log.ts";
import { forwardRequest } from "../src/forwarding/forward-request.ts";
import { MAX_DETAIL_MESSAGES } from "../src/forwarding/turn-details.ts";
import { presentationMode, TurnPresentation } from "../src/forwarding/turn-presentation.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import type { Capabilities } from "../src/platforms/platform-adapter.ts";
import { type DetailsMode, effectiveDetailsMode } from "../src/users/details-mode.ts";
import { UserStateStore } from "../src/users/user-state-store.ts";

// One turn in the chat: the main message (status, then the answer by the result mode) and the
// turn's details under it, inline or nowhere, by the chat's /details — against the memory adapter.

afterEach(() => {
  vi.useRealTimers();
});

const to = { platform: "memory", userId: "memory:u" };

function setup(mode: DetailsMode, capabilities: Partial<Capabilities> = {}, intervalMs = 5000) {
  const chat = createMemoryChatAdapter("memory", capabilities);
  const hub = new ChatHub([chat], {
    logger: createTestLogger().logger,
    buttons: ButtonStore.inMemory(60_000, () => Date.now()),
    retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
  });
  const turn = new TurnPresentation(hub, to, {
    mode: presentationMode(mode, { threads: chat.capabilities.threads, canEdit: chat.capabilities.canEdit }),
    intervalMs,
    now: () => Date.now(),
  });
  return { chat, turn };
}

/** What the chat shows: text, and the main message a message was sent under. */
const shown = (chat: MemoryChatAdapter) => chat.sent.map((m) => [m.text, m.thread]);

describe("thread: details under the main message", () => {
  it("a burst of tool calls is one details message per interval, under the main message; the answer comes last", async () => {
    vi.useFakeTimers();
    const { chat, turn } = setup("thread");
    expect(turn.wantsDetails).toBe(true);
    turn.add("running: ls"); // an older host's status line: no kind
    for (let i = 1; i <= 5; i++) {
      turn.add(`shell: step ${i}`, "tool");
      turn.add(`out ${i}`, "result");
    }
    await vi.advanceTimersByTimeAsync(0);
    const main = chat.sent[0]?.messageId;
    expect(shown(chat)).toEqual([
      ["… running: ls", undefined],
      [expect.stringMatching(/^🔧 shell: step 1\n```\nout 1\n```\n🔧 shell: step 2/), main],
    ]);
    turn.add("shell: step 6", "tool");
    turn.add("2.1k in · 90 out", "usage");
    await vi.advanceTimersByTimeAsync(1000);
    expect(chat.sent).toHaveLength(2); // the interval has not passed: still waiting
    // The answer comes: what waits goes out first, then the answer, the last message in the chat.
    await turn.conclude({ ok: true, text: "the answer" }, "send", { replyTo: "in-1" });
    expect(shown(chat)).toEqual([
      ["… running: ls\n✅ done", undefined],
      [expect.stringContaining("step 5"), main],
      ["🔧 shell: step 6\n📊 2.1k in · 90 out", main],
      ["the answer", undefined],
    ]);
    expect(chat.sent.at(-1)?.replyTo).toBe("in-1");
  });

  it("bounded per turn: past the limit one line says how many were left out", async () => {
    vi.useFakeTimers();
    const { chat, turn } = setup("thread");
    turn.add("working");
    for (let i = 0; i < 200; i++) {
      turn.add(`tool ${i}`, "tool");
      turn.add("x".repeat(3000), "result"); // a node that ignores the bound: clipped here too
      await vi.advanceTimersByTimeAsync(5000);
    }
    await turn.conclude({ ok: true, text: "done" }, "send", {});
    const details = chat.sent.filter((m) => m.thread);
    expect(details).toHaveLength(MAX_DETAIL_MESSAGES + 1);
    expect(details.at(-1)?.text).toMatch(/^… \d+ more not shown$/);
    for (const message of details) expect(message.text.length).toBeLessThanOrEqual(4000);
    expect(chat.sent.at(-1)?.text).toBe("done");
  });

  it("a detail before any status opens the main message; `replace` keeps the answer in it where threads are separate", async () => {
    const { chat, turn } = setup("thread", { threads: "threads" }, 0);
    turn.add("shell: ls", "tool");
    await vi.waitFor(() => expect(chat.sent).toHaveLength(2));
    expect(shown(chat)).toEqual([
      ["… working", undefined],
      ["🔧 shell: ls", chat.sent[0]?.messageId],
    ]);
    await turn.conclude({ ok: true, text: "the answer" }, "replace", {});
    expect(chat.sent[0]?.history).toEqual(["… working", "the answer"]);
    expect(chat.sent).toHaveLength(2);
  });

  it("`replace` where details are replies: the answer is sent after them, not hidden above them", async () => {
    const { chat, turn } = setup("thread", {}, 0);
    turn.add("running: ls");
    turn.add("out", "result");
    await vi.waitFor(() => expect(chat.sent).toHaveLength(2));
    await turn.conclude({ ok: true, text: "the answer" }, "replace", {});
    expect(chat.sent.map((m) => m.text)).toEqual(["… running: ls\n✅ done", "```\nout\n```", "the answer"]);
    // No details were shown: `replace` replaces as before.
    const plain = setup("thread", {}, 0);
    plain.turn.add("running: ls");
    await vi.waitFor(() => expect(plain.chat.sent).toHaveLength(1));
    await plain.turn.conclude({ ok: true, text: "the answer" }, "replace", {});
    expect(plain.chat.sent.map((m) => m.history)).toEqual([["… running: ls", "the answer"]]);
  });

  it("a result with backticks stays one code block", async () => {
    const { chat, turn } = setup("thread", {}, 0);
    turn.add("a ``` b", "result");
    await turn.conclude({ ok: true, text: "ok" }, "send", {});
    expect(chat.sent.find((m) => m.thread)?.text).toBe("````\na ``` b\n````");
  });
});

describe("inline, off, and platforms without threads", () => {
  it("inline: a result's first line and the usage are lines of the progress message; tool calls are its status", async () => {
    const { chat, turn } = setup("inline", {}, 0);
    turn.add("running: ls");
    turn.add("shell: ls", "tool");
    turn.add("\na.txt\nb.txt", "result");
    turn.add("10 in · 5 out", "usage");
    await turn.conclude({ ok: true, text: "done" }, "send", {});
    expect(shown(chat)).toEqual([
      ["… running: ls\n↳ a.txt\n📊 10 in · 5 out\n✅ done", undefined],
      ["done", undefined],
    ]);
  });

  it("off: status and answer only, and the node is not asked for details", async () => {
    const { chat, turn } = setup("off", {}, 0);
    expect(turn.wantsDetails).toBe(false);
    turn.add("running: ls");
    turn.add("shell: ls", "tool");
    turn.add("out", "result");
    await turn.conclude({ ok: true, text: "the answer" }, "replace", {});
    expect(chat.sent.map((m) => m.history)).toEqual([["… running: ls", "the answer"]]);
  });

  it("no threads (the terminal, the console) or no edits: `thread` is shown inline; the default follows the platform", async () => {
    expect(effectiveDetailsMode(undefined, "replies")).toBe("thread");
    expect(effectiveDetailsMode(undefined, "none")).toBe("inline");
    expect(effectiveDetailsMode("off", "none")).toBe("off");
    expect(presentationMode("thread", { threads: "threads", canEdit: false })).toBe("inline");
    const { chat, turn } = setup("thread", { threads: "none" }, 0);
    turn.add("running: ls");
    turn.add("out", "result");
    await turn.conclude({ ok: true, text: "done" }, "send", {});
    expect(shown(chat)).toEqual([
      ["… running: ls\n↳ out\n✅ done", undefined],
      ["done", undefined],
    ]);
  });

  it("the node is asked for details only when the chat shows them; its detail frames reach the turn with their kind", async () => {
    const frames: ForwardFrame[] = [];
    const heard: Array<[string, string | undefined]> = [];
    const message = {
      platform: "memory",
      messageId: "in-1",
      chatId: "memory:c",
      userId: "memory:u",
      chatType: "private" as const,
      text: "hi",
    };
    for (const mode of ["thread", "off"] as const) {
      const { turn } = setup(mode);
      // Resolves once the request's origin is committed and the frame is sent (its answer never comes).
      await forwardRequest(
        {
          requests: new RequestLog(openRouterDatabase(":memory:"), 60_000, () => Date.now()),
          forward: (_node, frame, options) => {
            frames.push(frame);
            options.onProgress?.("x", "usage");
            return new Promise(() => {});
          },
          requestTimeoutMs: 1000,
          newId: () => `r-${mode}`,
          logger: createTestLogger().logger,
        },
        message,
        { nodeId: "n", nodes: [], text: "hi", details: turn.wantsDetails },
        (line, kind) => heard.push([line, kind]),
      );
    }
    expect(frames.map((f) => f.details)).toEqual([true, undefined]);
    expect(heard).toEqual([
      ["x", "usage"],
      ["x", "usage"],
    ]);
  });

  it("the chat hub passes `thread` only to a platform that has threads or replies", async () => {
    for (const threads of ["none", "replies"] as const) {
      const chat = createMemoryChatAdapter("memory", { threads });
      const hub = new ChatHub([chat], {
        logger: createTestLogger().logger,
        buttons: ButtonStore.inMemory(60_000, () => Date.now()),
        retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
      });
      await hub.sendText(to, "detail", { thread: "m7" });
      expect(chat.sent[0]?.thread).toBe(threads === "none" ? undefined : "m7");
    }
  });
});

describe("/details", () => {
  it("alone: the current setting and the others as buttons; set per chat, kept across a restart", () => {
    const dir = makeTempDir();
    const path = `${dir.path}/router.db`;
    const asker = {
      userId: "memory:u",
      platform: "memory",
      chatId: "memory:c1",
      threads: "replies" as const,
    };
    const db = openRouterDatabase(path);
    const state = UserStateStore.open(db);
    const first = detailsCommand(asker, "", state);
    expect(first.text).toMatch(/^Details in this chat: under the turn's message/);
    expect(first.buttons?.flat().map((b) => b.command)).toEqual(["/details inline", "/details off"]);
    expect(detailsCommand(asker, "off", state).text).toMatch(/^✅ Details in this chat: not shown/);
    expect(detailsCommand(asker, "sideways", state).text).toBe("Usage: /details thread|inline|off");
    expect(state.detailsMode("memory:u", "memory:c1")).toBe("off");
    db.close();
    const reopened = openRouterDatabase(path);
    const again = UserStateStore.open(reopened);
    expect(again.detailsMode("memory:u", "memory:c1")).toBe("off");
    expect(again.detailsMode("memory:u", "memory:c2")).toBeUndefined(); // per chat
    // Where the chat has no threads, "thread" is not offered, and choosing it says it is inline.
    const terminal = { ...asker, threads: "none" as const, chatId: "memory:c3" };
    expect(
      detailsCommand(terminal, "", again)
        .buttons?.flat()
        .map((b) => b.label),
    ).toEqual(["off"]);
    expect(detailsCommand(terminal, "thread", again).text).toMatch(/as lines .*no threads or replies/);
    reopened.close();
    dir.remove();
  });
});
