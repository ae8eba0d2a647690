import type { Overview } from "@phonework/protocol";
import { connectFakeNode, type FakeNode, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { consoleLinkFor, fakeAssets } from "./console-support.ts";
import { memoryId, onCleanup, SECRET, startTestRouter } from "./support.ts";

// The console's live overview, router side, with hosts that speak the wire by hand: who is asked
// and when, and that a host's answer reaches only the page of the user it was asked about — a
// host cannot push one user's work to another user, answer a request it was not sent, or answer
// for another node.

const alice = memoryId("alice");
const bob = memoryId("bob");

const overviewWith = (what: string): Overview => ({
  sessions: [],
  tasks: [],
  plans: [],
  schedule: [
    {
      id: "1",
      kind: "message",
      text: what,
      due_at: 1,
      time_zone: "UTC",
      actions: [{ label: "Cancel", command: "/cancel 1" }],
    },
  ],
  approvals: [],
});

interface PageFrame {
  type: string;
  node?: string;
  overview?: Overview;
  admin_nodes?: Array<{ id: string; serves: string[] | "all" }>;
}

async function start(overrides: Record<string, unknown> = {}) {
  const t = await startTestRouter({ ADMINS: alice, ...overrides }, { consoleAssets: fakeAssets() });
  const host = new URL(t.url).host;

  /** A signed-in page of `user`, as a plain WebSocket that keeps every frame. */
  const openPage = async (user: string) => {
    const code =
      new URL(await consoleLinkFor(t.chat, user.replace(/^memory:/, ""))).searchParams.get("code") ?? "";
    const signedIn = await t.router.app.inject({
      method: "POST",
      url: "/console/login",
      headers: { host, "content-type": "application/x-www-form-urlencoded" },
      payload: `code=${code}`,
    });
    const cookie = String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
    const socket = new WebSocket(`${t.url.replace(/^http/, "ws")}/console/ws`, {
      headers: { cookie, origin: t.url },
    });
    onCleanup(() => socket.terminate());
    const frames: PageFrame[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(String(data)) as PageFrame));
    await waitFor(() => frames.some((frame) => frame.type === "hello"), { message: `${user}'s hello` });
    const overviews = () => frames.filter((frame) => frame.type === "overview");
    return { socket, frames, overviews };
  };

  /** A host serving `users`, with the overview capability unless told otherwise. */
  const connectNode = async (nodeId: string, users: string[], capabilities = ["overview"]) => {
    const node = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
    onCleanup(() => node.close());
    await node.register({
      node_id: nodeId,
      display_name: nodeId,
      serves_users: users,
      working_dir: "/",
      capabilities,
      protocol_versions: [3],
    });
    return node;
  };
  return { ...t, openPage, connectNode };
}

const requestFor = (node: FakeNode, user: string, timeoutMs = 5000) =>
  node.inbox
    .next("overview_request", (frame) => frame.user_id === user, timeoutMs)
    .then((frame) => ({ id: String(frame.id), user_id: String(frame.user_id) }));

describe("console overview relay", () => {
  it("asks each of the user's nodes when a page opens, and passes the answer to that user's pages only", async () => {
    const t = await start();
    const home = await t.connectNode("home-pc", [alice]);
    const shared = await t.connectNode("shared-pc", [alice, bob]);
    const bobPage = await t.openPage(bob);
    const bobAsk = await requestFor(shared, bob);
    const alicePage = await t.openPage(alice);
    const [homeAsk, sharedAsk] = await Promise.all([requestFor(home, alice), requestFor(shared, alice)]);

    home.send({
      type: "overview",
      id: homeAsk.id,
      user_id: alice,
      at: 5,
      overview: overviewWith("alice home"),
    });
    shared.send({
      type: "overview",
      id: sharedAsk.id,
      user_id: alice,
      at: 6,
      overview: overviewWith("alice shared"),
    });
    shared.send({
      type: "overview",
      id: bobAsk.id,
      user_id: bob,
      at: 7,
      overview: overviewWith("bob shared"),
    });
    await waitFor(() => alicePage.overviews().length === 2 && bobPage.overviews().length === 1, {
      message: "both pages' overviews",
    });
    expect(
      alicePage
        .overviews()
        .map((f) => [f.node, f.overview?.schedule[0]?.text])
        .sort(),
    ).toEqual([
      ["home-pc", "alice home"],
      ["shared-pc", "alice shared"],
    ]);
    expect(bobPage.overviews()).toEqual([
      expect.objectContaining({ node: "shared-pc", at: 7, overview: overviewWith("bob shared") }),
    ]);
    // A second page of alice's gets the latest at once, without asking the hosts again.
    const second = await t.openPage(alice);
    await waitFor(() => second.overviews().length === 2, { message: "the kept overviews" });
    expect(t.router.console?.overviews.pending).toBe(0);
  });

  it("a host cannot answer for another user, another request or another node", async () => {
    const t = await start();
    const home = await t.connectNode("home-pc", [alice]);
    const shared = await t.connectNode("shared-pc", [alice, bob]);
    const bobPage = await t.openPage(bob);
    const bobAsk = await requestFor(shared, bob);
    const alicePage = await t.openPage(alice);
    const homeAsk = await requestFor(home, alice);
    const sharedAsk = await requestFor(shared, alice);

    // home-pc answers alice's request as if about bob; then with a made-up id; then with shared-pc's id.
    home.send({
      type: "overview",
      id: homeAsk.id,
      user_id: bob,
      at: 1,
      overview: overviewWith("pushed to bob"),
    });
    home.send({
      type: "overview",
      id: "overview-made-up",
      user_id: alice,
      at: 1,
      overview: overviewWith("unasked"),
    });
    home.send({
      type: "overview",
      id: sharedAsk.id,
      user_id: alice,
      at: 1,
      overview: overviewWith("as shared-pc"),
    });
    // shared-pc answers bob's request as if about alice (to reach alice's page).
    shared.send({
      type: "overview",
      id: bobAsk.id,
      user_id: alice,
      at: 1,
      overview: overviewWith("to alice"),
    });
    home.send({ type: "overview_changed", user_ids: [bob] }); // home-pc does not serve bob: not asked
    // A well-formed answer afterwards shows the others were dropped, not queued.
    const askedBefore = home.inbox.ofType("overview_request").length;
    await home.roundTrip(); // the router has handled all of the above
    // The request stayed in flight: nothing settled it, and nothing asked again.
    expect(home.inbox.ofType("overview_request")).toHaveLength(askedBefore);
    shared.send({
      type: "overview",
      id: sharedAsk.id,
      user_id: alice,
      at: 2,
      overview: overviewWith("real"),
    });
    await waitFor(() => alicePage.overviews().length === 1, { message: "the real overview" });
    expect(alicePage.overviews()[0]).toMatchObject({ node: "shared-pc", overview: overviewWith("real") });
    expect(bobPage.overviews()).toEqual([]);
    expect(t.logs().filter((line) => /answers no request/.test(String(line.msg)))).toHaveLength(4);
    // The router and both sockets are still up.
    expect(home.socket.readyState).toBe(WebSocket.OPEN);
    expect(alicePage.socket.readyState).toBe(WebSocket.OPEN);
  });

  it("changes announced while a request is out ask again once, and only for users with a page open", async () => {
    const t = await start();
    const home = await t.connectNode("home-pc", [alice, bob]);
    const page = await t.openPage(alice);
    const first = await requestFor(home, alice);
    for (let i = 0; i < 20; i++) home.send({ type: "overview_changed", user_ids: [alice, bob] });
    // Nothing more until the first is answered (no request per change).
    await home.roundTrip();
    expect(home.inbox.frames.filter((f) => f.type === "overview_request")).toHaveLength(1);
    home.send({ type: "overview", id: first.id, user_id: alice, at: 1, overview: overviewWith("v1") });
    const second = await requestFor(home, alice);
    expect(second.id).not.toBe(first.id);
    home.send({ type: "overview", id: second.id, user_id: alice, at: 2, overview: overviewWith("v2") });
    await waitFor(() => page.overviews().length === 2, { message: "both versions" });
    await home.roundTrip();
    const asked = home.inbox.frames.filter((f) => f.type === "overview_request");
    expect(asked.map((f) => f.user_id)).toEqual([alice, alice]); // bob has no page: never asked

    // A refusal (an error with the request's id) ends the request; the next change asks again.
    home.send({ type: "overview_changed", user_ids: [alice] });
    const third = await requestFor(home, alice);
    home.send({ type: "error", id: third.id, code: "UNAUTHORIZED", message: "not served here" });
    home.send({ type: "overview_changed", user_ids: [alice] });
    const fourth = await requestFor(home, alice);
    expect(fourth.id).not.toBe(third.id);

    // The page closed: changes ask nothing.
    page.socket.close();
    await waitFor(() => t.router.console?.overviews.overviewsOf(alice).length === 0, {
      message: "the overviews forgotten",
    });
    const before = home.inbox.frames.length;
    home.send({ type: "overview_changed", user_ids: [alice] });
    await home.roundTrip();
    expect(home.inbox.frames.slice(before).filter((f) => f.type === "overview_request")).toEqual([]);
  });

  it("a host without the capability is never asked; a node coming online is; one gone offline is forgotten", async () => {
    const t = await start();
    const old = await t.connectNode("old-pc", [alice], []);
    const page = await t.openPage(alice);
    const home = await t.connectNode("home-pc", [alice]);
    const ask = await requestFor(home, alice);
    home.send({ type: "overview", id: ask.id, user_id: alice, at: 1, overview: overviewWith("home") });
    await waitFor(() => page.overviews().length === 1, { message: "home-pc's overview" });
    expect(old.inbox.frames.filter((f) => f.type === "overview_request")).toEqual([]);
    home.kill();
    await waitFor(() => t.router.console?.overviews.overviewsOf(alice).length === 0, {
      message: "home-pc's overview forgotten",
    });
  });

  it("admins get every node with who it serves; other users do not", async () => {
    const t = await start();
    await t.connectNode("home-pc", [alice]);
    await t.connectNode("bob-pc", [bob]);
    const admin = await t.openPage(alice);
    const user = await t.openPage(bob);
    const adminHello = admin.frames.find((f) => f.type === "hello");
    expect(adminHello?.admin_nodes?.map((n) => [n.id, n.serves]).sort()).toEqual([
      ["bob-pc", [bob]],
      ["home-pc", [alice]],
    ]);
    expect(user.frames.find((f) => f.type === "hello")).not.toHaveProperty("admin_nodes");
  });
});
