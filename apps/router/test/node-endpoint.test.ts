import { connectFakeNode, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { adminHeaders, memoryId, SECRET, startTestRouter } from "./support.ts";

// The /ws/node endpoint over real sockets: auth, handshake, bad frames, heartbeat.

async function health(url: string) {
  const response = await fetch(`${url}/health`, adminHeaders);
  return (await response.json()) as {
    status: string;
    nodes: Array<Record<string, unknown> & { node_id: string; status: string }>;
  };
}

describe("node endpoint", () => {
  it("registers a node and lists it in /health", async () => {
    const { url, nodeUrl } = await startTestRouter();
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    const answer = await node.register({
      node_id: "home-pc",
      display_name: "Home PC",
      serves_users: ["ou_1"],
      capabilities: ["shell"],
      sessions: [{ id: "s1", agent: "claude", project: "todo_app", busy: false }],
    });
    expect(answer).toMatchObject({
      type: "register_ok",
      protocol_version: 3,
      node_id: "home-pc",
      heartbeat_interval_s: 30,
      heartbeat_timeout_s: 10,
      max_payload_bytes: 16 * 1024 * 1024,
    });
    const body = await health(url);
    expect(body.status).toBe("ok");
    expect(body.nodes).toEqual([
      expect.objectContaining({
        node_id: "home-pc",
        display_name: "Home PC",
        status: "online",
        users: [memoryId("ou_1")], // a bare SERVES_USERS id is the only chat adapter's
        sessions: [expect.objectContaining({ id: "s1", project: "todo_app" })],
        online_for: expect.stringMatching(/^\d+s$/),
        last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);
  });

  it("wrong ROUTER_SECRET → connection rejected with 401 before the upgrade", async () => {
    const { nodeUrl, url } = await startTestRouter();
    await expect(connectFakeNode({ url: nodeUrl, secret: "wrong" })).rejects.toThrow("401");
    await expect(connectFakeNode({ url: nodeUrl, headers: { Authorization: SECRET } })).rejects.toThrow(
      "401",
    );
    expect((await health(url)).nodes).toEqual([]);
  });

  it("closes a host that sends anything before register, with a reason", async () => {
    const { nodeUrl } = await startTestRouter();
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    node.send({ type: "pong", ts: 1 });
    const error = await node.inbox.next("error");
    expect(error).toMatchObject({ code: "NOT_REGISTERED" });
    expect(await node.closed).toEqual({ code: 1008, reason: "expected a register frame first" });
  });

  it("refuses an unsupported protocol version with register_error, then closes", async () => {
    const { nodeUrl, url } = await startTestRouter();
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    const answer = await node.register({ protocol_versions: [99] });
    expect(answer).toMatchObject({ type: "register_error", code: "UNSUPPORTED_VERSION" });
    expect(String(answer.reason)).toContain("[99]");
    expect((await node.closed).code).toBe(4001);
    expect((await health(url)).nodes).toEqual([]);
  });

  it("refuses a v2 host (delivery ids were optional then) like a v1 one", async () => {
    const { nodeUrl } = await startTestRouter();
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    const answer = await node.register({ protocol_versions: [1, 2] });
    expect(answer).toMatchObject({ type: "register_error", code: "UNSUPPORTED_VERSION" });
    expect(String(answer.reason)).toContain("router speaks protocol versions [3]");
    expect((await node.closed).code).toBe(4001);
  });

  it("answers malformed and unknown frames with an error frame and keeps the connection", async () => {
    const { nodeUrl, url } = await startTestRouter();
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await node.register();
    node.send("{not json");
    expect(await node.inbox.next("error")).toMatchObject({
      code: "BAD_FRAME",
      message: "frame is not valid JSON",
    });
    node.send({ type: "teleport" });
    expect(await node.inbox.next("error")).toMatchObject({
      code: "BAD_FRAME",
      message: "unknown frame type 'teleport'",
    });
    node.send({ type: "progress", id: 5 });
    expect(await node.inbox.next("error")).toMatchObject({ code: "BAD_FRAME" });
    node.send({ type: "register", node_id: "again" });
    expect(await node.inbox.next("error")).toMatchObject({ code: "BAD_FRAME" });
    // Still registered and online.
    expect(node.socket.readyState).toBe(node.socket.OPEN);
    expect((await health(url)).nodes[0]?.status).toBe("online");
  });

  it("closes an oversized frame's socket with 1009 and stays up", async () => {
    const { nodeUrl, url } = await startTestRouter({ MAX_PAYLOAD_BYTES: 1024 });
    const big = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await big.register({ node_id: "big" });
    big.send({ type: "progress", id: "x", text: "y".repeat(4096) });
    expect((await big.closed).code).toBe(1009);
    // The router still accepts other nodes and serves /health.
    const next = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    expect(await next.register({ node_id: "next" })).toMatchObject({ type: "register_ok" });
    const nodes = (await health(url)).nodes;
    expect(nodes.find((n) => n.node_id === "big")?.status).toBe("offline");
    expect(nodes.find((n) => n.node_id === "next")?.status).toBe("online");
  });

  it("a node connecting again with the same id replaces the old connection cleanly", async () => {
    const { nodeUrl, url, chat } = await startTestRouter();
    const first = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await first.register({ node_id: "home-pc", serves_users: ["u1"] });
    const second = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await second.register({ node_id: "home-pc", serves_users: ["u1"] });
    expect((await first.closed).code).toBe(4000);
    const nodes = (await health(url)).nodes;
    expect(nodes).toHaveLength(1);
    expect(nodes[0]?.status).toBe("online");
    // Replacement is not a disconnect: nobody is told the node went away.
    expect(chat.sent).toEqual([]);
  });

  it("drops a node that stops answering pings (heartbeat timeout)", async () => {
    const { nodeUrl, url } = await startTestRouter({ HEARTBEAT_INTERVAL_S: 0.1, HEARTBEAT_TIMEOUT_S: 0.2 });
    const healthy = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await healthy.register({ node_id: "healthy" });
    const silent = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await silent.register({ node_id: "silent" });
    silent.autoPong(false);
    await silent.closed;
    const nodes = (await health(url)).nodes;
    expect(nodes.find((n) => n.node_id === "silent")?.status).toBe("offline");
    // The node that keeps answering stays, several heartbeats later.
    expect(healthy.inbox.ofType("ping").length).toBeGreaterThan(1);
    expect(nodes.find((n) => n.node_id === "healthy")?.status).toBe("online");
  });

  it("drops a socket that never registers, with no closing handshake to wait for", async () => {
    const { nodeUrl } = await startTestRouter({ HANDSHAKE_TIMEOUT_S: 0.2 });
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    expect(await node.closed).toEqual({ code: 1006, reason: "" });
  });

  it("delivers a node's task completion to the user's chat", async () => {
    const { nodeUrl, chat } = await startTestRouter();
    chat.receive({ userId: "u1", text: "/nodes" }); // the router learns the user's chat
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await node.register({ node_id: "home-pc", serves_users: ["u1"] });
    node.send({
      type: "task_complete",
      task_id: "abc123",
      delivery_id: "task-abc123",
      user_id: memoryId("u1"),
      ok: true,
      description: "pytest -q",
      output: "42 passed",
      elapsed_ms: 42_000,
    });
    const text = await waitFor(() => chat.textsFor("u1").find((t) => t.startsWith("✅ Task")));
    expect(text).toBe("✅ Task #abc123 done (42s)\npytest -q\n\n42 passed");
  });
});
