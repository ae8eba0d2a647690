import { connectFakeNode, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { memoryId, onCleanup, SECRET, startTestRouter, tempDataDir } from "./support.ts";

// A host's failure is an answer like any other: it comes through the host's outbox with a delivery
// id, so it is shown to the user exactly once and acknowledged, even if it is sent twice or
// arrives after the router restarted and forgot the request.

const USER = "u1";
const SHOWN = '❌ Node "builder" could not handle that (INTERNAL): the host failed: disk on fire';

async function connectBuilder(nodeUrl: string) {
  const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
  onCleanup(() => node.kill());
  await node.register({ node_id: "builder", serves_users: [USER] });
  return node;
}

function failureFor(id: string) {
  return {
    type: "forward_response",
    id,
    text: "the host failed: disk on fire",
    error: { code: "INTERNAL", message: "the host failed: disk on fire" },
    user_id: memoryId(USER),
    platform: "memory",
    chat_id: memoryId(`chat-${USER}`),
    delivery_id: `reply-${id}`,
  };
}

describe("error answers", () => {
  it("a failure sent through the outbox is shown once and acknowledged each time it arrives", async () => {
    const t = await startTestRouter();
    const node = await connectBuilder(t.nodeUrl);
    t.chat.receive({ userId: USER, text: "deploy" });
    const id = String((await node.inbox.next("forward")).id);
    node.send(failureFor(id));
    expect(await node.inbox.next("push_ack")).toMatchObject({
      delivery_id: `reply-${id}`,
      ok: true,
      message_id: expect.any(String),
    });
    node.send(failureFor(id)); // resent, as after a reconnect
    expect(await node.inbox.next("push_ack")).toMatchObject({ delivery_id: `reply-${id}`, ok: true });
    expect(t.chat.textsFor(USER).filter((m) => m === SHOWN)).toHaveLength(1);
    expect(t.chat.textsFor(USER).filter((m) => m.includes("disk on fire"))).toHaveLength(1);
  });

  it("an answer without a delivery id is a bad frame (required since v3): the node is told, nothing is shown", async () => {
    const t = await startTestRouter();
    const node = await connectBuilder(t.nodeUrl);
    t.chat.receive({ userId: USER, text: "deploy" });
    const id = String((await node.inbox.next("forward")).id);
    const { delivery_id: _, ...withoutId } = failureFor(id);
    node.send(withoutId);
    expect(await node.inbox.next("error")).toMatchObject({
      code: "BAD_FRAME",
      message: expect.stringContaining("delivery_id"),
    });
    node.send(failureFor(id)); // the same answer, as the outbox sends it, still reaches the request
    expect(await node.inbox.next("push_ack")).toMatchObject({ delivery_id: `reply-${id}`, ok: true });
    expect(t.chat.textsFor(USER).filter((m) => m === SHOWN)).toHaveLength(1);
  });

  it("a failure that arrives after the router restarted is shown once as a late answer", async () => {
    const routerData = tempDataDir();
    let t = await startTestRouter({ DATA_DIR: routerData });
    const port = Number(new URL(t.url).port);
    let node = await connectBuilder(t.nodeUrl);
    t.chat.receive({ userId: USER, text: "deploy" });
    const id = String((await node.inbox.next("forward")).id);

    node.kill();
    await t.router.close({ drainMs: 0 }); // the request dies with the router's memory
    t = await startTestRouter({ DATA_DIR: routerData, ROUTER_PORT: port });
    node = await connectBuilder(t.nodeUrl);
    node.send(failureFor(id));
    expect(await node.inbox.next("push_ack")).toMatchObject({ delivery_id: `reply-${id}`, ok: true });
    await waitFor(() => t.chat.textsFor(USER).some((m) => m.includes("disk on fire")));
    expect(t.chat.textsFor(USER).filter((m) => m.includes("disk on fire"))).toEqual([
      `↩️ Late answer to an earlier message:\n\n${SHOWN}`,
    ]);
  });
});
