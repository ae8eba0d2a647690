import { connectFakeNode, createTestLogger, type FakeNode } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { NodeNotices } from "../src/delivery/node-notices.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { PlatformError } from "../src/platforms/platform-adapter.ts";
import { UserStateStore } from "../src/users/user-state-store.ts";
import { memoryId, onCleanup, SECRET, startTestRouter, type TestRouter } from "./support.ts";

// A notify with an `edit_key` keeps one message up to date (a plan's progress): the router edits
// the message it sent for that key, where the platform can edit, and sends a new one otherwise.

const U1 = memoryId("u1");

async function join(t: TestRouter, nodeId: string): Promise<FakeNode> {
  const node = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
  onCleanup(() => node.kill());
  expect(await node.register({ node_id: nodeId, display_name: nodeId, serves_users: ["u1"] })).toMatchObject({
    type: "register_ok",
  });
  return node;
}

/** Sends a notify and resolves with the router's push_ack for it. */
async function notify(node: FakeNode, deliveryId: string, fields: Record<string, unknown>) {
  node.send({ type: "notify", user_id: U1, delivery_id: deliveryId, text: "", ...fields });
  return node.inbox.next("push_ack", (f) => f.delivery_id === deliveryId);
}

describe("notify edit_key over the wire", () => {
  it("a second notify with the same key edits the first message; another key is a new message", async () => {
    const t = await startTestRouter();
    const node = await join(t, "home-pc");
    const first = await notify(node, "n1", { text: "plan: 0/2 done", edit_key: "plan-1" });
    const second = await notify(node, "n2", { text: "plan: 1/2 done", edit_key: "plan-1" });
    expect(first).toMatchObject({ ok: true, message_id: "m1" });
    expect(second).toMatchObject({ ok: true, message_id: "m1" });
    expect(t.chat.sent.map((m) => m.history)).toEqual([["plan: 0/2 done", "plan: 1/2 done"]]);

    expect(await notify(node, "n3", { text: "other plan", edit_key: "plan-2" })).toMatchObject({ ok: true });
    expect(await notify(node, "n4", { text: "no key" })).toMatchObject({ ok: true });
    expect(t.chat.textsFor("u1")).toEqual(["plan: 1/2 done", "other plan", "no key"]);
  });

  it("notifies sent back to back with one key still end up as one message", async () => {
    const t = await startTestRouter();
    const node = await join(t, "home-pc");
    for (let i = 1; i <= 5; i++)
      node.send({ type: "notify", user_id: U1, delivery_id: `n${i}`, text: `step ${i}`, edit_key: "plan-1" });
    await node.inbox.next("push_ack", (f) => f.delivery_id === "n5");
    expect(t.chat.sent.map((m) => m.history)).toEqual([["step 1", "step 2", "step 3", "step 4", "step 5"]]);
  });

  it("another node's notify with the same key does not touch the first node's message", async () => {
    const t = await startTestRouter();
    const home = await join(t, "home-pc");
    const work = await join(t, "work-srv");
    await notify(home, "n1", { text: "home progress", edit_key: "plan-1" });
    await notify(work, "n1", { text: "work progress", edit_key: "plan-1" });
    // Two nodes serve u1, so each message names its node.
    expect(t.chat.sent.map((m) => m.history.length)).toEqual([1, 1]);
    expect(t.chat.sent[0]?.text).toContain("home progress");
    expect(t.chat.sent[1]?.text).toContain("work progress");
  });
});

/** NodeNotices over a ChatHub with one memory adapter, for platforms the test router does not have. */
function noticesOn(adapter: MemoryChatAdapter) {
  const { logger } = createTestLogger();
  const hub = new ChatHub([adapter], {
    logger,
    buttons: ButtonStore.inMemory(60_000, () => Date.now()),
    retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
  });
  const nodes = { get: () => undefined, nodesForUser: () => [] };
  const notices = new NodeNotices(hub, UserStateStore.inMemory(), nodes, logger);
  return (text: string, editKey = "plan-1") =>
    notices.deliverPush("home-pc", {
      type: "notify",
      user_id: U1,
      text,
      delivery_id: text,
      edit_key: editKey,
    });
}

describe("notify edit_key per platform", () => {
  it("on a platform that cannot edit, each notify is a new message", async () => {
    const adapter = createMemoryChatAdapter("memory", { canEdit: false });
    const push = noticesOn(adapter);
    expect(await push("0/2")).toEqual({ ok: true, messageId: "m1" });
    expect(await push("1/2")).toEqual({ ok: true, messageId: "m2" });
    expect(adapter.sent.map((m) => m.history)).toEqual([["0/2"], ["1/2"]]);
  });

  it("an edit the platform refuses becomes a new message, which the next notify edits", async () => {
    const adapter = createMemoryChatAdapter();
    const edit = adapter.edit.bind(adapter);
    let refuse = true;
    adapter.edit = async (to, messageId, text) => {
      if (refuse) throw new PlatformError("permanent", "message to edit not found");
      return edit(to, messageId, text);
    };
    const push = noticesOn(adapter);
    await push("0/2");
    expect(await push("1/2")).toEqual({ ok: true, messageId: "m2" });
    refuse = false;
    expect(await push("2/2")).toEqual({ ok: true, messageId: "m2" });
    expect(adapter.sent.map((m) => m.history)).toEqual([["0/2"], ["1/2", "2/2"]]);
  });

  it("an edit that changes nothing (not_modified) counts as delivered, with no new message", async () => {
    const adapter = createMemoryChatAdapter();
    adapter.edit = async () => {
      throw new PlatformError("not_modified", "message is not modified");
    };
    const push = noticesOn(adapter);
    await push("0/2");
    expect(await push("0/2 again")).toEqual({ ok: true, messageId: "m1" });
    expect(adapter.sent).toHaveLength(1);
  });
});
