import { connectFakeNode, createManualClock, makeNodeKey, signChallenge, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { parseRouterCommand } from "../src/commands/router-commands.ts";
import {
  ADMIN,
  ADMIN_ID,
  askJoinCode,
  echo,
  pairedNode,
  reconnect,
  startPairingRouter,
} from "./pairing-support.ts";
import { memoryId, onCleanup, SECRET, startTestRouter } from "./support.ts";

// Hosts are paired, each with its own key, over real sockets — and every way an attacker would
// try to become, or speak for, another node fails.

const refusedWith = (reason: string) => ({
  type: "register_error",
  code: "UNAUTHORIZED",
  reason: expect.stringContaining(reason),
});

describe("pairing", () => {
  it("an admin's /pair gives a one-time code; the host joins with it, then its key alone gets it in", async () => {
    const t = await startPairingRouter();
    const code = await askJoinCode(t, "home-pc");
    expect(code).toMatch(/^home-pc:[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(t.chat.textsFor(ADMIN)[0]).toContain(`phonework host --join ${code}`);

    const key = makeNodeKey();
    const first = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    expect(await first.registerWithKey(key, "home-pc", { joinCode: code })).toMatchObject({
      type: "register_ok",
    });
    expect(t.router.registry.get("home-pc")).toMatchObject({
      paired: true,
      owner: ADMIN_ID,
      servesUsers: [ADMIN_ID],
    });
    echo(first, "home-pc");
    t.chat.receive({ userId: ADMIN, text: "hello" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("home-pc: hello"));
    first.close();
    await waitFor(() => t.router.registry.get("home-pc")?.status === "offline");

    const { answer } = await reconnect(t, key, "home-pc");
    expect(answer).toMatchObject({ type: "register_ok", node_id: "home-pc" });
    expect(JSON.stringify(t.logs())).not.toContain(code.split(":")[1]); // the code is in no log line
  });

  it("a join code works once, and not after JOIN_CODE_TTL_S", async () => {
    const clock = createManualClock();
    const t = await startPairingRouter({ JOIN_CODE_TTL_S: 0.3 }, { clock });
    const code = await askJoinCode(t, "pc-a");
    const joined = await connectFakeNode({ url: t.nodeUrl, nodeId: "pc-a" });
    onCleanup(() => joined.kill());
    expect(await joined.registerWithKey(makeNodeKey(), "pc-a", { joinCode: code })).toMatchObject({
      type: "register_ok",
    });
    const again = await connectFakeNode({ url: t.nodeUrl, nodeId: "pc-a" });
    expect(await again.registerWithKey(makeNodeKey(), "pc-a", { joinCode: code })).toMatchObject(
      refusedWith("already used"),
    );
    expect((await again.closed).code).toBe(4401);

    await askJoinCode(t, "pc-b");
    clock.advance(400);
    // With its only code expired, pc-b is no node the router expects: refused before the upgrade.
    await expect(connectFakeNode({ url: t.nodeUrl, nodeId: "pc-b" })).rejects.toThrow("401");
    expect(t.router.registry.get("pc-b")).toBeUndefined();
  });

  it("a code is bound to its name: another node id, a made-up or altered code gets nothing", async () => {
    const t = await startPairingRouter();
    const code = await askJoinCode(t, "home-pc");
    const secret = code.split(":")[1] ?? "";
    // No code waits for work-srv: refused before the upgrade.
    await expect(connectFakeNode({ url: t.nodeUrl, nodeId: "work-srv" })).rejects.toThrow("401");
    for (const [nodeId, joinCode] of [
      ["home-pc", `work-srv:${secret}`],
      ["home-pc", `home-pc:${secret.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`],
      ["home-pc", "home-pc:AAAA-AAAA-AAAA-AAAA"],
      ["home-pc", "not a code"],
    ] as const) {
      const node = await connectFakeNode({ url: t.nodeUrl, nodeId });
      const answer = await node.registerWithKey(makeNodeKey(), nodeId, { joinCode });
      expect(answer, joinCode).toMatchObject({ type: "register_error", code: "UNAUTHORIZED" });
    }
    expect(t.router.registry.list()).toEqual([]);
    // The real code still works after all that.
    const node = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    onCleanup(() => node.kill());
    expect(await node.registerWithKey(makeNodeKey(), "home-pc", { joinCode: code })).toMatchObject({
      type: "register_ok",
    });
  });

  it("only admins pair, revoke, forget and share; with no ADMINS and several users, /pair says how to set them", async () => {
    const t = await startPairingRouter();
    for (const command of ["/pair x", "/revoke x", "/forget x", "/share x u3", "/unshare x u3", "/status"]) {
      t.chat.receive({ userId: "u2", text: command });
      await waitFor(() => t.chat.textsFor("u2").length > 0);
      expect(t.chat.textsFor("u2").pop(), command).toMatch(/^🔒 \/\w+ is for admins\.$/);
      t.chat.sent.splice(0);
    }
    const open = await startTestRouter({ ALLOWED_USERS: "u1,u2" });
    open.chat.receive({ userId: "u1", text: "/pair x" });
    expect(await waitFor(() => open.chat.textsFor("u1")[0])).toBe(
      "🔒 /pair is for admins, and none is set: set ADMINS on the router (your id: memory:u1).",
    );
  });
});

describe("a node id belongs to its key", () => {
  it("a second key for a paired id is refused, logged at warn with the id, and the real node keeps its traffic", async () => {
    const t = await startPairingRouter();
    const { node: real } = await pairedNode(t, "home-pc");
    echo(real, "home-pc");
    const impostor = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    expect(await impostor.registerWithKey(makeNodeKey(), "home-pc")).toMatchObject(
      refusedWith("another key is paired for node home-pc"),
    );
    expect((await impostor.closed).code).toBe(4401);
    const warned = t.logs().find((line) => line.msg === "node refused");
    expect(warned).toMatchObject({ level: 40, nodeId: "home-pc" });
    expect(real.socket.readyState).toBe(real.socket.OPEN);
    t.chat.receive({ userId: ADMIN, text: "still mine?" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("home-pc: still mine?"));
    expect(impostor.inbox.ofType("forward")).toEqual([]);
  });

  it("the shared secret cannot take a paired id, and is not accepted at all on a router not bound to loopback", async () => {
    const t = await startPairingRouter();
    await pairedNode(t, "home-pc");
    const withSecret = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
    expect(await withSecret.register({ node_id: "home-pc" })).toMatchObject(
      refusedWith("belongs to a paired key"),
    );

    const exposed = await startTestRouter({ ROUTER_HOST: "0.0.0.0" });
    const url = exposed.nodeUrl.replace("0.0.0.0", "127.0.0.1");
    await expect(connectFakeNode({ url, secret: SECRET })).rejects.toThrow("401");
    expect(JSON.stringify(exposed.logs())).toContain(
      "ROUTER_SECRET is ignored on a router that is not bound to loopback",
    );
  });

  it("a recorded handshake replayed on a new connection is refused (the nonce is per connection)", async () => {
    const t = await startPairingRouter();
    const { key } = await pairedNode(t, "home-pc");
    const spy = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    const challenge = await spy.inbox.next("challenge");
    const recorded = {
      type: "register",
      node_id: "home-pc",
      display_name: "home-pc",
      serves_users: [],
      working_dir: "/",
      capabilities: [],
      protocol_versions: [3],
      auth: signChallenge(key, String(challenge.nonce), "home-pc"),
    };
    spy.kill();
    const replay = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    replay.send(recorded);
    expect(await replay.inbox.next(["register_ok", "register_error"])).toMatchObject(
      refusedWith("does not verify"),
    );
  });

  it("display-name squatting is refused at register, saying why; a pairing join keeps its key under its id", async () => {
    const t = await startPairingRouter();
    const { node: real, key: realKey } = await pairedNode(t, "home-pc", { display_name: "Home PC" });
    echo(real, "home-pc");
    // The join that pairs a squatter's key cannot be undone: it registers once under its id...
    const { node: squatter, key } = await pairedNode(t, "other", { display_name: "home pc" });
    echo(squatter, "other");
    expect(t.router.registry.get("other")?.displayName).toBe("other");
    squatter.kill();
    await waitFor(() => t.router.registry.get("other")?.status === "offline");
    // ...and from then on each name that is, or begins, what home-pc answers to is refused.
    const refusals: Array<[string, string]> = [
      ["home pc", 'is "Home PC", the name of node "home-pc"'],
      ["HOME-PC", 'is "home-pc", the id of another node'],
      ["home-pc /shell", 'begins with "home-pc", the id of another node'],
      ["Home PC, files", 'begins with "Home PC", the name of node "home-pc"'],
      ["Home", 'it begins the name of node "home-pc" ("Home PC")'],
    ];
    for (const [name, why] of refusals) {
      const { answer } = await reconnect(t, key, "other", { display_name: name });
      expect(answer).toMatchObject({ type: "register_error", code: "BAD_FRAME" });
      expect(String(answer.reason)).toContain(why);
      expect(String(answer.reason)).toContain("set DISPLAY_NAME to another name");
    }
    expect(t.router.registry.get("other")?.status).toBe("offline");
    // A name of its own is fine, and the real node keeps its name across reconnects.
    expect((await reconnect(t, key, "other", { display_name: "Garage box" })).answer.type).toBe(
      "register_ok",
    );
    real.kill();
    const { node: back, answer } = await reconnect(t, realKey, "home-pc", { display_name: "Home PC" });
    expect(answer.type).toBe("register_ok");
    echo(back, "home-pc");
    t.chat.receive({ userId: ADMIN, text: "@Home PC are you there?" });
    // Reached by the name its host chose: the answer names the node by its id.
    const answer2 = await waitFor(() =>
      t.chat.textsFor(ADMIN).find((text) => text.includes("home-pc: are you there?")),
    );
    expect(answer2).toBe("[home-pc] home-pc: are you there?");
    expect(JSON.stringify(t.logs())).toContain("refused node: display name");
  });

  it("a node shared with a user cannot take a name that captures messages for the user's own node", async () => {
    const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2", ADMINS: "u1,u2" });
    const { node: alice } = await pairedNode(t, "alice-pc");
    echo(alice, "alice-pc");
    // bob-pc is u2's (u2 paired it), shared with u1; its host then names itself after alice-pc's id.
    const code = await askJoinCode(t, "bob-pc", "u2");
    const bobKey = makeNodeKey();
    const bob = await connectFakeNode({ url: t.nodeUrl, nodeId: "bob-pc" });
    onCleanup(() => bob.kill());
    await bob.registerWithKey(bobKey, "bob-pc", { joinCode: code });
    t.chat.receive({ userId: "u2", text: `/share bob-pc ${ADMIN}` });
    await waitFor(() => t.router.registry.get("bob-pc")?.servesUsers.includes(ADMIN_ID));
    expect(t.router.registry.get("bob-pc")?.owner).toBe(memoryId("u2"));
    bob.kill();
    const { answer } = await reconnect(t, bobKey, "bob-pc", { display_name: "alice-pc /shell" });
    expect(answer).toMatchObject({ type: "register_error" });
    expect(String(answer.reason)).toContain('begins with "alice-pc"');

    const { node: again } = await reconnect(t, bobKey, "bob-pc");
    echo(again, "bob-pc");
    t.chat.receive({ userId: ADMIN, text: "@alice-pc /shell cat ~/notes.txt" });
    await waitFor(() =>
      t.chat.textsFor(ADMIN).some((text) => text.includes("alice-pc: /shell cat ~/notes.txt")),
    );
    expect(again.inbox.ofType("forward")).toEqual([]);
  });
});

describe("pairing a paired node again", () => {
  it("/pair for a paired node: the new key joins and keeps the owner, the old key is refused; another user may not ask", async () => {
    const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2,u3" });
    const { key: oldKey } = await pairedNode(t, "home-pc");
    const code = await askJoinCode(t, "home-pc");
    expect(t.chat.textsFor(ADMIN).at(-1)).toContain("Once it is used, the key home-pc has now is refused");
    const fresh = await connectFakeNode({ url: t.nodeUrl, nodeId: "home-pc" });
    onCleanup(() => fresh.kill());
    const joined = await fresh.registerWithKey(makeNodeKey(), "home-pc", { joinCode: code });
    expect(joined).toMatchObject({ type: "register_ok" });
    expect(t.router.pairing.ownerOf("home-pc")).toBe(ADMIN_ID);
    const { answer } = await reconnect(t, oldKey, "home-pc");
    expect(answer).toMatchObject({ type: "register_error", code: "UNAUTHORIZED" });

    // Neither a stranger nor a user the node is shared with (it serves them) may pair it again.
    t.router.pairing.share("home-pc", memoryId("u2"));
    for (const user of ["u3", "u2"]) {
      t.chat.receive({ userId: user, text: "/pair home-pc" });
      await waitFor(() => t.chat.textsFor(user).length > 0);
      expect(t.chat.textsFor(user)[0]).toBe("🔒 /pair is for admins.");
    }
  });

  it("a node's owner who is no admin may pair it again, but no new name", async () => {
    const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2" });
    // Paired for u2 as `phonework pair u2-pc --owner u2` does on the router's machine.
    const minted = t.router.pairing.pair("u2-pc", memoryId("u2"));
    if (!minted.ok) throw new Error(minted.error);
    const node = await connectFakeNode({ url: t.nodeUrl, nodeId: "u2-pc" });
    onCleanup(() => node.kill());
    await node.registerWithKey(makeNodeKey(), "u2-pc", { joinCode: minted.value.code });
    expect(t.router.pairing.ownerOf("u2-pc")).toBe(memoryId("u2"));

    const again = await askJoinCode(t, "u2-pc", "u2");
    expect(again).toMatch(/^u2-pc:/);
    const before = t.chat.textsFor("u2").length;
    t.chat.receive({ userId: "u2", text: "/pair u2-laptop" });
    expect(await waitFor(() => t.chat.textsFor("u2")[before])).toBe("🔒 /pair is for admins.");
  });
});

describe("who a node serves is the router's decision", () => {
  it("a host claiming another user gets nothing: SERVES_USERS only narrows its owner and shares", async () => {
    const t = await startPairingRouter({ ALLOWED_USERS: "u1,u2" });
    const { node } = await pairedNode(t, "home-pc", { serves_users: ["u2"] });
    expect(t.router.registry.get("home-pc")?.servesUsers).toEqual([]);
    t.chat.receive({ userId: "u2", text: "/shell id" });
    t.chat.receive({ userId: ADMIN, text: "/shell id" });
    await waitFor(() => t.chat.textsFor("u2").length > 0 && t.chat.textsFor(ADMIN).length > 1);
    expect(t.chat.textsFor("u2")[0]).toContain("No node is serving you yet");
    await new Promise((resolve) => setImmediate(resolve));
    expect(node.inbox.ofType("forward")).toEqual([]);
  });

  it("/share and /unshare decide who else a node serves", async () => {
    const t = await startPairingRouter();
    const { node } = await pairedNode(t, "home-pc");
    echo(node, "home-pc");
    t.chat.receive({ userId: "u2", text: "hi" });
    await waitFor(() => t.chat.textsFor("u2").length === 1);
    expect(node.inbox.ofType("forward")).toEqual([]);

    // A bare id is the only chat adapter's, as in SERVES_USERS.
    t.chat.receive({ userId: ADMIN, text: "/share home-pc u2" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("✅ home-pc now serves: memory:u1, memory:u2."));
    t.chat.receive({ userId: "u2", text: "hi again" });
    await waitFor(() => t.chat.textsFor("u2").includes("home-pc: hi again"));

    t.chat.receive({ userId: ADMIN, text: "/unshare home-pc memory:u2" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("✅ home-pc now serves: memory:u1."));
    t.chat.receive({ userId: "u2", text: "and now?" });
    await waitFor(() => t.chat.textsFor("u2").length === 3);
    expect(t.chat.textsFor("u2")[2]).not.toContain("home-pc:");

    // An id naming an adapter the router does not have shares with nobody.
    t.chat.receive({ userId: ADMIN, text: "/share home-pc telegram:42" });
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => text.startsWith("❌")));
    expect(t.chat.textsFor(ADMIN).at(-1)).toMatch(/^❌ "telegram:42" names no chat adapter "telegram"/);
    expect(t.router.registry.get("home-pc")?.servesUsers).toEqual([ADMIN_ID]);
  });

  it("/revoke closes the node's socket within a second and refuses its key; /forget removes it from /nodes", async () => {
    const t = await startPairingRouter();
    const { node, key } = await pairedNode(t, "home-pc");
    const started = Date.now();
    t.chat.receive({ userId: ADMIN, text: "/revoke home-pc" });
    const closed = await node.closed;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(closed).toEqual({ code: 4401, reason: "this node was revoked" });
    // A revoked id is no node the router expects: its key is refused before the upgrade.
    await expect(reconnect(t, key, "home-pc")).rejects.toThrow("401");

    t.chat.receive({ userId: ADMIN, text: "/nodes" });
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => /home-pc .*revoked/.test(text)));
    t.chat.receive({ userId: ADMIN, text: "/forget home-pc" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("🗑️ home-pc forgotten."));
    expect(t.router.registry.get("home-pc")).toBeUndefined();
    // The name is free again: a new pairing under it works.
    await pairedNode(t, "home-pc");
  });

  it("admins see owners in /nodes and everything in /status", async () => {
    const t = await startPairingRouter();
    await pairedNode(t, "home-pc");
    t.chat.receive({ userId: ADMIN, text: "/nodes" });
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => text.includes("owner: memory:u1")));
    t.chat.receive({ userId: ADMIN, text: "/status" });
    await waitFor(() =>
      t.chat
        .textsFor(ADMIN)
        .some((text) => text.includes("• home-pc — online") && text.includes("owner memory:u1")),
    );
  });
});

describe("a typo never sends a command to another machine", () => {
  it("@unknown is answered with the user's nodes and forwarded nowhere", async () => {
    const t = await startPairingRouter();
    const { node: work } = await pairedNode(t, "work-srv");
    const { node: home } = await pairedNode(t, "home-pc");
    echo(work, "work-srv");
    t.chat.receive({ userId: ADMIN, text: "/node work-srv" });
    await waitFor(() => t.chat.textsFor(ADMIN).includes("✅ Active node: work-srv."));
    t.chat.receive({ userId: ADMIN, text: "@hom-pc /shell pwd" });
    await waitFor(() =>
      t.chat
        .textsFor(ADMIN)
        .includes('❓ No node named "hom-pc". Your nodes: home-pc, work-srv. Nothing was sent.'),
    );
    expect(work.inbox.ofType("forward")).toEqual([]);
    expect(home.inbox.ofType("forward")).toEqual([]);
  });
});

describe("parsing router commands", () => {
  it("takes the command word whole, in any case, with its arguments split on white space", () => {
    expect(parseRouterCommand("/pair  home-pc")).toEqual({ name: "pair", args: ["home-pc"] });
    expect(parseRouterCommand(" /SHARE home-pc\tou_b ")).toEqual({
      name: "share",
      args: ["home-pc", "ou_b"],
    });
    expect(parseRouterCommand("/status")).toEqual({ name: "status", args: [] });
    expect(parseRouterCommand('/node "Home PC"')).toEqual({ name: "node", arg: "Home PC" });
    for (const text of ["/pairing x", "/pairx", "/statuses", "pair x", "/shell /pair x"])
      expect(parseRouterCommand(text), text).toBeUndefined();
  });
});
