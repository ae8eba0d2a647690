import {
  connectFakeNode,
  type FakeNode,
  makeNodeKey,
  type NodeKey,
  signChallenge,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { ADMIN, askJoinCode, echo, pairedNode, startPairingRouter } from "./pairing-support.ts";
import { echoHandler, onCleanup, SECRET, startTestHost, startTestRouter } from "./support.ts";

// The dry handshake `phonework doctor` uses: a `register` with `probe: true` is answered as a real
// one would be, then closed, and registers nothing; a running node with the same key is untouched.

const probeFrame = (nodeId: string, auth?: object) => ({
  type: "register",
  node_id: nodeId,
  display_name: nodeId,
  serves_users: [],
  working_dir: "",
  capabilities: [],
  protocol_versions: [3],
  probe: true,
  ...(auth ? { auth } : {}),
});

async function probe(
  url: string,
  nodeId: string,
  options: { key?: NodeKey; joinCode?: string; secret?: string } = {},
): Promise<{ node: FakeNode; answer: Record<string, unknown>; challenge: Record<string, unknown> }> {
  const node = await connectFakeNode({ url, nodeId, ...(options.secret ? { secret: options.secret } : {}) });
  onCleanup(() => node.kill());
  const challenge = await node.inbox.next("challenge");
  const auth = options.key
    ? signChallenge(options.key, String(challenge.nonce), nodeId, options.joinCode)
    : undefined;
  node.send(probeFrame(nodeId, auth));
  const answer = await node.inbox.next(["register_ok", "register_error"]);
  return { node, answer, challenge };
}

describe("a probe register", () => {
  it("with a live node's key: register_ok, then closed; the live node keeps its socket and its traffic", async () => {
    const t = await startPairingRouter();
    const { node: live, key } = await pairedNode(t, "home-pc");
    echo(live, "home-pc");
    const before = t.router.registry.get("home-pc");
    let liveClosed = false;
    void live.closed.then(() => {
      liveClosed = true;
    });

    const { node, answer, challenge } = await probe(t.nodeUrl, "home-pc", { key });
    expect(challenge.features).toContain("probe");
    expect(answer).toMatchObject({ type: "register_ok", node_id: "home-pc" });
    expect((await node.closed).code).toBe(1000);

    t.chat.receive({ userId: ADMIN, text: "still here?" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("home-pc: still here?"));
    expect(liveClosed).toBe(false);
    expect(t.router.registry.get("home-pc")).toEqual(before);
    expect(t.logs().some((line) => line.msg === "node probe answered")).toBe(true);
  });

  it("a register sent right behind a probe on the same socket is ignored", async () => {
    const t = await startPairingRouter();
    const { node: live, key } = await pairedNode(t, "home-pc");
    echo(live, "home-pc");
    const node = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    onCleanup(() => node.kill());
    const challenge = await node.inbox.next("challenge");
    const auth = signChallenge(key, String(challenge.nonce), "home-pc");
    node.send(probeFrame("home-pc", auth));
    node.send({ ...probeFrame("home-pc", auth), probe: false });
    expect((await node.closed).code).toBe(1000);
    expect(node.inbox.ofType("register_ok")).toHaveLength(1);
    t.chat.receive({ userId: ADMIN, text: "mine" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("home-pc: mine"));
    expect(live.socket.readyState).toBe(live.socket.OPEN);
  });

  it("with an unknown key: refused as a register is, and nothing is recorded", async () => {
    const t = await startPairingRouter();
    // An id the router does not expect is refused before the upgrade, probe or not.
    await expect(probe(t.nodeUrl, "stranger", { key: makeNodeKey() })).rejects.toThrow("401");
    await pairedNode(t, "home-pc");
    const { node, answer } = await probe(t.nodeUrl, "home-pc", { key: makeNodeKey() });
    expect(answer).toMatchObject({
      type: "register_error",
      code: "UNAUTHORIZED",
      reason: expect.stringContaining("another key is paired"),
    });
    expect((await node.closed).code).toBe(4401);
    expect(t.router.registry.get("stranger")).toBeUndefined();
  });

  it("never redeems a join code: refused, and the code still pairs the host afterwards", async () => {
    const t = await startPairingRouter();
    const code = await askJoinCode(t, "new-pc");
    const key = makeNodeKey();
    const { node, answer } = await probe(t.nodeUrl, "new-pc", { key, joinCode: code });
    expect(answer).toMatchObject({ type: "register_error", code: "BAD_FRAME" });
    expect((await node.closed).code).toBe(4001);
    expect(t.router.registry.get("new-pc")).toBeUndefined();

    const joining = await connectFakeNode({ url: t.nodeUrl, nodeId: "new-pc" });
    onCleanup(() => joining.kill());
    expect(await joining.registerWithKey(key, "new-pc", { joinCode: code })).toMatchObject({
      type: "register_ok",
    });
  });

  it("through the shared secret: answered, nothing registered; a live host with that id stays registered", async () => {
    const t = await startTestRouter();
    const host = startTestHost(t.nodeUrl, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    await host.ready();
    const states: string[] = [];
    host.link.onStateChange((state) => states.push(state));

    const same = await probe(t.nodeUrl, "home-pc", { secret: SECRET });
    expect(same.answer).toMatchObject({ type: "register_ok", node_id: "home-pc" });
    expect((await same.node.closed).code).toBe(1000);
    const other = await probe(t.nodeUrl, "other-pc", { secret: SECRET });
    expect(other.answer).toMatchObject({ type: "register_ok", node_id: "other-pc" });
    expect(t.router.registry.get("other-pc")).toBeUndefined();

    t.chat.receive({ userId: "u1", text: "hello" });
    await waitFor(() => t.chat.textsFor("u1").includes("home-pc: hello"));
    expect(states).toEqual([]);
    expect(host.link.state).toBe("registered");
  });
});
