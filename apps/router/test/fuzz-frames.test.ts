import { decodeFrame, ErrorCode, Frame, HostFrame } from "@phonework/protocol";
import {
  type AnyFrame,
  connectFakeNode,
  deeplyNested,
  type FakeNode,
  fcParams,
  framesAnswering,
  frameTypes,
  garbageFrames,
  nearValidFrames,
  validFrames,
  waitFor,
  watchProcessErrors,
} from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adminHeaders, onCleanup, SECRET, startTestRouter } from "./support.ts";

// Hostile host→router frames over a real socket, from a registered node: whatever arrives, a
// malformed frame gets a typed error back, nothing crashes or rejects unhandled, and the same
// connection keeps serving real requests (one stays in flight across the whole barrage).

const RUNS = 200;

/** A router, one fake node registered for user u1, and a forward already waiting on that node. */
async function registeredNode(overrides: Parameters<typeof startTestRouter>[0] = {}) {
  const watch = watchProcessErrors();
  onCleanup(() => watch.stop());
  const router = await startTestRouter(overrides);
  const node = await connectFakeNode({ url: router.nodeUrl, secret: SECRET });
  await node.register({ node_id: "fuzz-node", serves_users: ["u1"] });
  router.chat.receive({ userId: "u1", text: "in flight during the barrage" });
  const inFlight = await node.inbox.next("forward");
  return { ...router, node, inFlight, watch };
}

/** The error frames the router sent in answer to `raw`. */
async function errorsAnswering(node: FakeNode, raw: string | Buffer): Promise<AnyFrame[]> {
  const frames = await framesAnswering(node, raw);
  return frames.filter((frame) => frame.type === "error");
}

/** The router's answer to one frame: one BAD_FRAME error about the connection, or nothing if it was fine. */
async function expectTypedAnswer(node: FakeNode, raw: string): Promise<void> {
  const errors = await errorsAnswering(node, raw);
  const decoded = decodeFrame(raw, HostFrame);
  // A second `register` on a live connection is refused too; every other valid frame is accepted silently.
  const refused = !decoded.ok || decoded.frame.type === "register";
  if (!refused) {
    expect(errors).toEqual([]);
    return;
  }
  expect(errors).toHaveLength(1);
  const [error] = errors;
  expect(ErrorCode.safeParse(error?.code).success).toBe(true);
  expect(error).toMatchObject({ type: "error", code: "BAD_FRAME", message: expect.any(String) });
  expect(error).not.toHaveProperty("id");
}

/** The in-flight request is still answered on the same connection, a new one round-trips, the node is online. */
async function expectConnectionStillServes(setup: Awaited<ReturnType<typeof registeredNode>>) {
  const { node, inFlight, chat, url, watch } = setup;
  node.send({
    type: "forward_response",
    id: inFlight.id,
    delivery_id: `reply-${inFlight.id}`,
    text: "answer to the request in flight",
  });
  await waitFor(() => chat.textsFor("u1").includes("answer to the request in flight"));
  chat.receive({ userId: "u1", text: "after the barrage" });
  const next = await node.inbox.next("forward", (frame) => frame.text === "after the barrage");
  node.send({
    type: "forward_response",
    id: next.id,
    delivery_id: `reply-${next.id}`,
    text: "answer after the barrage",
  });
  await waitFor(() => chat.textsFor("u1").includes("answer after the barrage"));
  await expectNodeOnline(url, "fuzz-node");
  expect(watch.errors).toEqual([]);
}

async function expectNodeOnline(url: string, nodeId: string) {
  const response = await fetch(`${url}/health`, adminHeaders);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { nodes: Array<{ node_id: string; status: string }> };
  expect(body.nodes.find((n) => n.node_id === nodeId)?.status).toBe("online");
}

describe("router under hostile host frames", () => {
  const otherTypes = frameTypes(Frame);

  it.each([
    ["valid frames of every host frame type", validFrames(HostFrame).map((frame) => JSON.stringify(frame))],
    ["fixtures with one field broken", nearValidFrames(HostFrame, otherTypes)],
    ["garbage text and random JSON", garbageFrames(HostFrame)],
  ])("%s: typed errors, no crash, the connection keeps working", async (_name, frames) => {
    const setup = await registeredNode();
    await fc.assert(
      fc.asyncProperty(frames, (raw) => expectTypedAnswer(setup.node, raw)),
      fcParams({ numRuns: RUNS }),
    );
    await expectConnectionStillServes(setup);
  });

  it("binary frames and deeply nested JSON get BAD_FRAME; the connection keeps working", async () => {
    const setup = await registeredNode();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 512 }), async (bytes) => {
        expect(await errorsAnswering(setup.node, Buffer.from(bytes))).toMatchObject([
          { type: "error", code: "BAD_FRAME", message: "binary frames are not supported" },
        ]);
      }),
      fcParams({ numRuns: 30 }),
    );
    for (const raw of [deeplyNested(200_000), deeplyNested(200_000, "object")]) {
      expect(await errorsAnswering(setup.node, raw)).toMatchObject([{ code: "BAD_FRAME" }]);
    }
    // Deep nesting in a field the schema does not know is ignored, like any extra field.
    const pong = `{"type":"pong","ts":1,"extra":${deeplyNested(200_000)}}`;
    expect(await errorsAnswering(setup.node, pong)).toEqual([]);
    const progress = `{"type":"progress","id":"x","text":${deeplyNested(200_000, "object")}}`;
    expect(await errorsAnswering(setup.node, progress)).toMatchObject([
      { code: "BAD_FRAME", message: expect.stringMatching(/^invalid 'progress' frame: text:/) },
    ]);
    await expectConnectionStillServes(setup);
  });

  it("a frame over MAX_PAYLOAD_BYTES closes only that socket, with 1009; the router stays up", async () => {
    const max = 64 * 1024;
    const setup = await registeredNode({ MAX_PAYLOAD_BYTES: max });
    const frameOfSize = (bytes: number) => {
      const empty = JSON.stringify({ type: "progress", id: "nobody", text: "" });
      return JSON.stringify({ type: "progress", id: "nobody", text: "x".repeat(bytes - empty.length) });
    };
    // Exactly the limit is still a frame; one byte more is not.
    expect(await errorsAnswering(setup.node, frameOfSize(max))).toEqual([]);
    setup.node.send(frameOfSize(max + 1));
    expect((await setup.node.closed).code).toBe(1009);
    // The request that was in flight on it fails at once, and the user is told.
    await waitFor(() =>
      setup.chat.textsFor("u1").some((text) => text.includes('Node "fuzz-node" went offline')),
    );
    const other = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    expect(await other.register({ node_id: "other-node" })).toMatchObject({ type: "register_ok" });
    await expectNodeOnline(setup.url, "other-node");
    expect(setup.watch.errors).toEqual([]);
  });

  it("text that is not UTF-8 closes that socket with 1007 (the WebSocket rule); the router stays up", async () => {
    const setup = await registeredNode();
    setup.node.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await setup.node.closed).code).toBe(1007);
    const other = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    expect(await other.register({ node_id: "other-node" })).toMatchObject({ type: "register_ok" });
    expect(setup.watch.errors).toEqual([]);
  });
});
