import { createTestLogger, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { createMemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { ADMIN, ADMIN_ID, pairedNode, startPairingRouter } from "./pairing-support.ts";
import { memoryId } from "./support.ts";

// What a paired node pushes on its own (notices, task completions, files, late answers) reaches
// only the users the router lets it serve, only chats they wrote from, in bounded size and rate.

/** A router with a node paired to u1, and u1 and u2 each having written once from their own chat. */
async function setup(overrides: Parameters<typeof startPairingRouter>[0] = {}) {
  const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2", ...overrides });
  const { node } = await pairedNode(t, "home-pc");
  for (const user of [ADMIN, "u2"]) t.chat.receive({ userId: user, text: "/nodes" });
  await waitFor(() => t.chat.textsFor("u2").length === 1);
  t.chat.sent.splice(0);
  return { ...t, node };
}

const notify = (deliveryId: string, fields: Record<string, unknown>) => ({
  type: "notify",
  delivery_id: deliveryId,
  user_id: ADMIN_ID,
  text: "hello",
  ...fields,
});

describe("pushes from a node", () => {
  it("notify, task_complete and send_file for a user the node does not serve are dropped and acknowledged as such", async () => {
    const t = await setup();
    t.node.send(notify("n1", { user_id: memoryId("u2"), text: "phish" }));
    t.node.send({
      type: "task_complete",
      delivery_id: "t1",
      task_id: "abc",
      user_id: memoryId("u2"),
      ok: true,
      description: "x",
      output: "y",
      elapsed_ms: 1,
    });
    t.node.send({
      type: "send_file",
      delivery_id: "f1",
      user_id: memoryId("u2"),
      name: "a.txt",
      data_base64: "aGk=",
    });
    for (const id of ["n1", "t1", "f1"])
      expect(await t.node.inbox.next("push_ack", (f) => f.delivery_id === id)).toMatchObject({
        ok: false,
        error: "node home-pc does not serve user memory:u2",
      });
    expect(t.chat.sent).toEqual([]);
    expect(t.logs().filter((line) => String(line.msg).startsWith("push dropped"))).toHaveLength(3);
    // The user it does serve still gets its pushes.
    t.node.send(notify("n2", {}));
    expect(await t.node.inbox.next("push_ack", (f) => f.delivery_id === "n2")).toMatchObject({ ok: true });
    expect(t.chat.textsFor(ADMIN)).toEqual(["hello"]);
  });

  it("a push naming a chat its user never wrote from goes to the user's own latest chat instead", async () => {
    const t = await setup();
    t.node.send(notify("n1", { platform: "memory", chat_id: memoryId("chat-u2"), text: "for u1's eyes" }));
    await t.node.inbox.next("push_ack", (f) => f.delivery_id === "n1");
    expect(t.chat.sent.map((m) => [m.to.chatId, m.text])).toEqual([["chat-u1", "for u1's eyes"]]);
  });

  it("a late answer goes to the chat recorded for its request, never one the node names; an unknown request's answer is dropped", async () => {
    const t = await setup({ REQUEST_TIMEOUT_S: 0.2 });
    t.chat.receive({ userId: ADMIN, text: "take your time" });
    const forward = await t.node.inbox.next("forward");
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => text.startsWith("⏱️")));
    t.node.send({
      type: "forward_response",
      id: forward.id,
      delivery_id: "late-1",
      text: "done at last",
      user_id: memoryId("u2"),
      platform: "memory",
      chat_id: memoryId("chat-u2"),
    });
    expect(await t.node.inbox.next("push_ack", (f) => f.delivery_id === "late-1")).toMatchObject({
      ok: true,
    });
    const late = t.chat.sent.find((m) => m.text.includes("done at last"));
    expect(late).toMatchObject({ to: { userId: ADMIN, chatId: "chat-u1" } });
    expect(late?.text).toContain("↩️ Late answer");

    t.node.send({
      type: "forward_response",
      id: "never-forwarded",
      delivery_id: "late-2",
      text: "spam",
      user_id: memoryId("u2"),
      chat_id: memoryId("chat-u2"),
    });
    expect(await t.node.inbox.next("push_ack", (f) => f.delivery_id === "late-2")).toMatchObject({
      ok: false,
      error: "answer to an unknown request",
    });
    expect(t.chat.sent.some((m) => m.text.includes("spam"))).toBe(false);
  });

  it("an answer whose delivery id was shown before (a request forwarded again after a restart, its first answer shown late) ends that request's wait silently", async () => {
    const t = await setup({ REQUEST_TIMEOUT_S: 0.5 });
    t.node.send(notify("reply-1", { text: "the answer" }));
    await t.node.inbox.next("push_ack", (f) => f.delivery_id === "reply-1");
    t.chat.receive({ userId: ADMIN, text: "asked again" });
    const forward = await t.node.inbox.next("forward");
    t.node.send({ type: "forward_response", id: forward.id, delivery_id: "reply-1", text: "the answer" });
    await waitFor(() =>
      t.logs().some((line) => line.msg === "answer shown before, as a late answer; nothing more to show"),
    );
    await waitFor(() => t.node.inbox.ofType("push_ack").length === 2);
    // Not waited for any more: no timeout to tell, and the answer is in the chat once.
    t.chat.receive({ userId: ADMIN, text: "/nodes" });
    await waitFor(() => t.chat.textsFor(ADMIN).length === 2);
    expect(t.chat.textsFor(ADMIN)[0]).toBe("the answer");
    expect(t.chat.textsFor(ADMIN)[1]).toMatch(/home-pc/);
  });

  it("a late answer over the node's push rate is kept by the host (RATE_LIMITED), not dropped", async () => {
    const t = await setup({ REQUEST_TIMEOUT_S: 0.2, PUSH_RATE_PER_MIN: 1 });
    t.chat.receive({ userId: ADMIN, text: "take your time" });
    const forward = await t.node.inbox.next("forward");
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => text.startsWith("⏱️")));
    t.node.send(notify("n1", { text: "uses the minute's only push" }));
    await t.node.inbox.next("push_ack", (f) => f.delivery_id === "n1");
    t.node.send({ type: "forward_response", id: forward.id, delivery_id: "late-1", text: "done at last" });
    expect(await t.node.inbox.next("error", (f) => f.delivery_id === "late-1")).toMatchObject({
      code: "RATE_LIMITED",
    });
    expect(t.node.inbox.ofType("push_ack").map((f) => f.delivery_id)).toEqual(["n1"]);
    expect(t.chat.sent.some((m) => m.text.includes("done at last"))).toBe(false);
  });

  it("a text over MAX_PUSH_CHARS is cut with a marker, and task output too", async () => {
    const t = await setup({ MAX_PUSH_CHARS: 100 });
    t.node.send(notify("n1", { text: "x".repeat(1_000_000) }));
    await t.node.inbox.next("push_ack", (f) => f.delivery_id === "n1");
    expect(t.chat.textsFor(ADMIN)).toEqual([`${"x".repeat(100)}\n…[cut: 999900 more characters]`]);
  });

  it("a node's button cannot carry a router command: a press goes to that node as text, and shares nothing", async () => {
    const t = await setup();
    // A compromised host dresses an admin command up as an approval.
    t.node.send(
      notify("n1", {
        text: "🔐 Codex wants to run: make test",
        buttons: [[{ label: "Approve", command: "/share home-pc u2" }]],
      }),
    );
    await t.node.inbox.next("push_ack", (f) => f.delivery_id === "n1");
    expect(await t.chat.press("Approve", ADMIN)).toBe("✓ Approve");
    const forward = await t.node.inbox.next("forward");
    expect(forward).toMatchObject({ user_id: ADMIN_ID, text: "/share home-pc u2" });
    expect(t.router.registry.nodesForUser(memoryId("u2"))).toEqual([]);
  });

  it("past PUSH_RATE_PER_MIN a node's pushes get RATE_LIMITED with a retry time, are not acknowledged, and are not shown", async () => {
    const t = await setup({ PUSH_RATE_PER_MIN: 3 });
    for (let i = 1; i <= 5; i++) t.node.send(notify(`n${i}`, { text: `notice ${i}` }));
    for (const id of ["n4", "n5"])
      expect(await t.node.inbox.next("error", (f) => f.delivery_id === id)).toMatchObject({
        code: "RATE_LIMITED",
        retry_after_s: expect.any(Number),
      });
    await waitFor(() => t.chat.textsFor(ADMIN).length === 3);
    expect(t.chat.textsFor(ADMIN)).toEqual(["notice 1", "notice 2", "notice 3"]);
    expect(t.node.inbox.ofType("push_ack").map((f) => f.delivery_id)).toEqual(["n1", "n2", "n3"]);
  });
});

describe("the router's send queue per chat", () => {
  it("is bounded: past the limit sends to that chat are refused at once, other chats are unaffected", async () => {
    const slow = createMemoryChatAdapter();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const send = slow.send.bind(slow);
    slow.send = async (to, text, options) => {
      await gate;
      return send(to, text, options);
    };
    const { logger } = createTestLogger();
    const hub = new ChatHub([slow], {
      logger,
      buttons: ButtonStore.inMemory(60_000, () => Date.now()),
      retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
      maxPerChat: 3,
    });
    const flood = Array.from({ length: 10 }, (_, i) =>
      hub.sendText({ platform: "memory", userId: memoryId("u1"), chatId: memoryId("c1") }, `m${i}`),
    );
    const other = hub.sendText(
      { platform: "memory", userId: memoryId("u2"), chatId: memoryId("c2") },
      "other chat",
    );
    release();
    const results = await Promise.all(flood);
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(await other).toBeDefined();
    expect(slow.textsFor("u1")).toEqual(["m0", "m1", "m2"]);
  });
});
