import { waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { echoHandler, proxyTo, startTestHost, startTestRouter } from "./support.ts";

// Chat adapter → router → host → back, over real sockets with real hosts.

describe("forwarding", () => {
  it("round-trips a message to the only node and back", async () => {
    const { router, chat, nodeUrl } = await startTestRouter();
    const host = startTestHost(nodeUrl, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    await host.ready();
    chat.receive({ userId: "u1", text: "hello there" });
    await waitFor(() => chat.textsFor("u1").includes("home-pc: hello there"));
    await router.dispatcher.drain();
    expect(chat.textsFor("u1")).toEqual(["home-pc: hello there"]);
  });

  it("shows progress as one message edited in place, then the answer as a new message", async () => {
    const { chat, nodeUrl } = await startTestRouter();
    const handler = echoHandler("home-pc");
    const host = startTestHost(nodeUrl, {}, handler);
    await host.ready();
    chat.receive({ userId: "u1", text: "slow" });
    await waitFor(() => chat.textsFor("u1").includes("… working on it"));
    handler.release();
    await waitFor(() => chat.textsFor("u1").includes("home-pc: slow"));
    // By default ("send") the progress message is marked done and the answer is a message of its own.
    expect(chat.textsFor("u1")).toEqual(["… working on it\n✅ done", "home-pc: slow"]);
    expect(chat.sent[0]?.history).toEqual(["… working on it", "… working on it\n✅ done"]);
  });

  it("/result replace puts the answer in place of the progress message, in that chat", async () => {
    const { chat, nodeUrl } = await startTestRouter();
    const handler = echoHandler("home-pc");
    await startTestHost(nodeUrl, {}, handler).ready();
    chat.receive({ userId: "u1", text: "/result" });
    chat.receive({ userId: "u1", text: "/result replace" });
    await waitFor(() => chat.textsFor("u1").length === 2);
    expect(chat.textsFor("u1")).toEqual([
      "Results in this chat: sent as a new message after the progress message (/result replace|send).",
      "✅ Results in this chat: replace the progress message (/result replace|send).",
    ]);
    chat.sent.splice(0);
    chat.receive({ userId: "u1", text: "slow" });
    await waitFor(() => chat.textsFor("u1").includes("… working on it"));
    handler.release();
    await waitFor(() => chat.textsFor("u1").includes("home-pc: slow"));
    expect(chat.sent.map((m) => m.history)).toEqual([["… working on it", "home-pc: slow"]]);
    // Another chat of the same user keeps the default.
    chat.receive({ userId: "u1", chatId: "team", chatType: "group", text: "/result" });
    await waitFor(() => chat.sent.length === 2);
    expect(chat.sent[1]?.text).toMatch(/^Results in this chat: sent as a new message/);
  });

  it("two nodes serving the same user — asks to choose, then routes to the active node", async () => {
    const { chat, nodeUrl, router } = await startTestRouter();
    await startTestHost(nodeUrl, { NODE_ID: "home-pc", SERVES_USERS: "u1" }, echoHandler("home-pc")).ready();
    await startTestHost(
      nodeUrl,
      { NODE_ID: "work-server", SERVES_USERS: "u1,u2" },
      echoHandler("work-server"),
    ).ready();

    chat.receive({ userId: "u1", text: "status?" });
    await waitFor(() => chat.textsFor("u1").length === 1);
    expect(chat.textsFor("u1")[0]).toBe(
      "You have several nodes online: home-pc, work-server. Choose one with /node <name>, or start a message with @<name>.",
    );

    chat.receive({ userId: "u1", text: "/node work-server" });
    await waitFor(() => chat.textsFor("u1").length === 2);
    expect(chat.textsFor("u1")[1]).toBe("✅ Active node: work-server.");

    chat.receive({ userId: "u1", text: "status?" });
    await waitFor(() => chat.textsFor("u1").length === 3);
    expect(chat.textsFor("u1")[2]).toBe("[work-server] work-server: status?");

    // u2 is served only by work-server, so no choice is needed.
    chat.receive({ userId: "u2", text: "hi" });
    await waitFor(() => chat.textsFor("u2").includes("work-server: hi"));
    await router.dispatcher.drain();
  });

  it("/nodes shows all connected nodes with the active marker", async () => {
    const { chat, nodeUrl } = await startTestRouter();
    await startTestHost(nodeUrl, { NODE_ID: "home-pc", DISPLAY_NAME: "Home PC" }).ready();
    await startTestHost(nodeUrl, { NODE_ID: "work-server" }).ready();
    chat.receive({ userId: "u1", text: "/node home-pc" });
    chat.receive({ userId: "u1", text: "/nodes" });
    const listing = await waitFor(() => chat.textsFor("u1").find((t) => t.startsWith("Online:")));
    const lines = listing.split("\n");
    expect(lines[1]).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online \d+s\s+\(Home PC\)$/);
    expect(lines[2]).toMatch(/^ {2}work-server\s+sessions=0\s+online \d+s$/);
    expect(lines.at(-1)).toBe('Use "/node <name>" to switch active node.');
  });

  it("the active node survives a router restart", async () => {
    const first = await startTestRouter();
    const dataDir = first.config.DATA_DIR;
    const hostA = startTestHost(first.nodeUrl, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    const hostB = startTestHost(first.nodeUrl, { NODE_ID: "work-server" }, echoHandler("work-server"));
    await Promise.all([hostA.ready(), hostB.ready()]);
    first.chat.receive({ userId: "u1", text: "/node work-server" });
    await waitFor(() => first.chat.textsFor("u1").length === 1);
    await first.router.close();
    await hostA.stop();
    await hostB.stop();

    const second = await startTestRouter({ DATA_DIR: dataDir });
    await startTestHost(second.nodeUrl, { NODE_ID: "home-pc" }, echoHandler("home-pc")).ready();
    await startTestHost(second.nodeUrl, { NODE_ID: "work-server" }, echoHandler("work-server")).ready();
    second.chat.receive({ userId: "u1", text: "which?" });
    await waitFor(() => second.chat.textsFor("u1").includes("[work-server] work-server: which?"));
  });

  it("a node killed mid-request fails the request with NODE_OFFLINE within a second and tells the user", async () => {
    const { chat, nodeUrl, router } = await startTestRouter();
    const { proxy, url } = await proxyTo(nodeUrl);
    const host = startTestHost(url, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    await host.ready();
    chat.receive({ userId: "u1", text: "slow" });
    await waitFor(() => chat.textsFor("u1").includes("… working on it"));
    const killedAt = Date.now();
    // Reset the TCP connection without a close frame and refuse reconnects, as a killed process would.
    proxy.dropAll();
    await proxy.close();
    const failure = await waitFor(() =>
      chat.textsFor("u1").find((t) => t.includes("went offline before answering")),
    );
    const elapsed = Date.now() - killedAt;
    expect(failure).toBe(
      '⚠️ Node "home-pc" went offline before answering. Your message may not have been completed; send it again once the node is back.',
    );
    expect(elapsed).toBeLessThan(1000);
    await waitFor(() => chat.textsFor("u1").includes('⚠️ Node "home-pc" disconnected.'));
    expect(router.registry.get("home-pc")?.status).toBe("offline");
  });

  it("host reconnects → re-registered, the user is told, and messages flow again", async () => {
    const { chat, nodeUrl, router } = await startTestRouter();
    const { proxy, url } = await proxyTo(nodeUrl);
    const host = startTestHost(url, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    await host.ready();
    chat.receive({ userId: "u1", text: "one" });
    await waitFor(() => chat.textsFor("u1").includes("home-pc: one"));

    proxy.dropAll(); // connection lost; the host reconnects on its own
    await waitFor(() => chat.textsFor("u1").includes('⚠️ Node "home-pc" disconnected.'));
    await waitFor(() => chat.textsFor("u1").includes('✅ Node "home-pc" reconnected.'));
    expect(router.registry.get("home-pc")?.status).toBe("online");

    chat.receive({ userId: "u1", text: "two" });
    await waitFor(() => chat.textsFor("u1").includes("home-pc: two"));
  });

  it("tells the user clearly when their active node is offline", async () => {
    const { chat, nodeUrl } = await startTestRouter();
    const host = startTestHost(nodeUrl, { NODE_ID: "home-pc" }, echoHandler("home-pc"));
    await host.ready();
    chat.receive({ userId: "u1", text: "/node home-pc" });
    await waitFor(() => chat.textsFor("u1").length === 1);
    await host.stop();
    await waitFor(() => chat.textsFor("u1").includes('⚠️ Node "home-pc" disconnected.'));
    chat.receive({ userId: "u1", text: "are you there?" });
    const reply = await waitFor(() => chat.textsFor("u1").find((t) => t.includes("is offline")));
    expect(reply).toMatch(/^⚠️ home-pc is offline \(last seen \d+s ago\)/);
  });

  it("answers with TIMEOUT when a node takes longer than REQUEST_TIMEOUT_S, and cancels the work", async () => {
    const { chat, nodeUrl } = await startTestRouter({ REQUEST_TIMEOUT_S: 0.3 });
    let aborted = false;
    const host = startTestHost(
      nodeUrl,
      {},
      {
        handle: (_request, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              reject(new Error("aborted"));
            });
          }),
      },
    );
    await host.ready();
    chat.receive({ userId: "u1", text: "never answers" });
    const reply = await waitFor(() => chat.textsFor("u1")[0]);
    expect(reply).toMatch(/^⏱️ Node "home-pc" did not answer in time/);
    await waitFor(() => aborted, { message: "the host to abort the cancelled request" });
  });

  it("answers when no node serves the user", async () => {
    const { chat } = await startTestRouter();
    chat.receive({ userId: "u1", text: "anyone?" });
    const reply = await waitFor(() => chat.textsFor("u1")[0]);
    expect(reply).toMatch(/^No node is serving you yet/);
  });
});
