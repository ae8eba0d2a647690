import { connectFakeNode, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { echoHandler, onCleanup, SECRET, startTestHost, startTestRouter } from "./support.ts";

// Bounds on what one node can cost the router: a queue limit (QUEUE_FULL at once), a host that
// stops reading (cut off, pending requests fail with NODE_OFFLINE), a handshake storm (503 and
// Retry-After), and a router shutting down (503 for newcomers).

const USERS = ["u1", "u2", "u3"];

describe("backpressure", () => {
  it("past MAX_NODE_PENDING of one user, their next message gets QUEUE_FULL at once; others still get in", async () => {
    const { chat, nodeUrl } = await startTestRouter({ MAX_NODE_PENDING: 2 });
    const handler = echoHandler("home-pc");
    await startTestHost(nodeUrl, { NODE_ID: "home-pc" }, handler).ready();
    chat.receive({ userId: "u1", text: "slow" });
    chat.receive({ userId: "u1", text: "slow" });
    await waitFor(() => chat.textsFor("u1").includes("… working on it"));
    chat.receive({ userId: "u1", text: "slow" });
    const refused = await waitFor(() => chat.textsFor("u1").find((t) => t.startsWith("🚦")));
    expect(refused).toBe('🚦 Node "home-pc" is busy: queue full (max 2). Try again in a moment.');
    // One user's flood does not lock the others out of a node they share.
    chat.receive({ userId: "u2", text: "fast" });
    chat.receive({ userId: "u3", text: "fast" });
    await waitFor(
      () => chat.textsFor("u2").includes("home-pc: fast") && chat.textsFor("u3").includes("home-pc: fast"),
    );
    handler.release();
    await waitFor(() => chat.textsFor("u1").filter((t) => t === "home-pc: slow").length === 2);
    const answers = USERS.map((u) => chat.textsFor(u).filter((t) => !t.startsWith("… ")).length);
    expect(answers).toEqual([3, 1, 1]); // every message answered or refused, exactly once
  });

  it("a node that stops reading is cut off and its pending requests fail with NODE_OFFLINE", async () => {
    const { chat, nodeUrl, router } = await startTestRouter({
      SLOW_SOCKET_BYTES: 64 * 1024,
      SLOW_SOCKET_S: 0.3,
    });
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    onCleanup(() => node.kill());
    await node.register({ node_id: "stuck", serves_users: ["u1"] });
    // The node's process stops reading its socket (it is alive, TCP is open, nothing is consumed).
    (node.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = "x".repeat(512 * 1024);
    for (let i = 0; i < 24; i++) chat.receive({ userId: "u1", text: `${i} ${big}` });

    await waitFor(() => router.registry.get("stuck")?.status === "offline", { timeoutMs: 10_000 });
    // Each message is told once that it failed: "went offline before answering" if it was forwarded
    // before the cut, "is offline" if the router took it after (a loaded machine stores 12 MiB slower
    // than the 0.3 s the node has). None lost, none told twice.
    const inFlight = (t: string) => t.startsWith('⚠️ Node "stuck" went offline before answering');
    const after = (t: string) => t.startsWith("⚠️ stuck is offline");
    const failures = await waitFor(
      () => {
        const told = chat.textsFor("u1").filter((t) => inFlight(t) || after(t));
        return told.length >= 24 ? told : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(failures).toHaveLength(24);
    // Besides those, only the notice that the node it uses disconnected.
    expect(chat.textsFor("u1").filter((t) => !inFlight(t) && !after(t))).toEqual([
      '⚠️ Node "stuck" disconnected.',
    ]);
    // The point: requests pending on the node when it was cut off fail with NODE_OFFLINE.
    expect(failures.filter(inFlight).length).toBeGreaterThan(0);
  });

  it("a handshake storm past MAX_HANDSHAKES_PER_S gets 503 with Retry-After; a real host still gets in", async () => {
    const { nodeUrl, router } = await startTestRouter({ MAX_HANDSHAKES_PER_S: 3 });
    const statuses = await Promise.all(
      Array.from(
        { length: 12 },
        () =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(nodeUrl, { headers: { Authorization: `Bearer ${SECRET}` } });
            socket.once("open", () => {
              socket.close();
              resolve("open");
            });
            socket.once("unexpected-response", (_req, res) => {
              resolve(`${res.statusCode} retry-after=${res.headers["retry-after"]}`);
              socket.terminate();
            });
            socket.once("error", () => {});
          }),
      ),
    );
    expect(statuses.filter((s) => s === "open").length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === "open").length).toBeLessThanOrEqual(4);
    // Refused with a retry hint spread over 1-5 s, so refused hosts do not all come back at once.
    expect(statuses.filter((s) => /^503 retry-after=[1-5]$/.test(s)).length).toBeGreaterThanOrEqual(8);
    // A host backs off and retries; it registers once the bucket refills.
    await startTestHost(nodeUrl, { NODE_ID: "patient", RECONNECT_MAX_DELAY_S: 0.5 }).ready();
    expect(router.registry.get("patient")?.status).toBe("online");
  });

  it("while the router shuts down, new hosts get 503 and in-flight answers still reach the user", async () => {
    const t = await startTestRouter();
    const handler = echoHandler("home-pc");
    await startTestHost(t.nodeUrl, { NODE_ID: "home-pc" }, handler).ready();
    t.chat.receive({ userId: "u1", text: "slow" });
    await waitFor(() => t.chat.textsFor("u1").includes("… working on it"));
    const closed = t.router.close({ drainMs: 5000 });
    const status = await new Promise<number | undefined>((resolve) => {
      const socket = new WebSocket(t.nodeUrl, { headers: { Authorization: `Bearer ${SECRET}` } });
      socket.once("unexpected-response", (_req, res) => {
        resolve(res.statusCode);
        socket.terminate();
      });
      socket.once("open", () => resolve(101));
      socket.once("error", () => resolve(undefined));
    });
    expect(status).toBe(503);
    handler.release();
    await closed;
    expect(t.chat.textsFor("u1").filter((x) => x === "home-pc: slow")).toHaveLength(1);
  });
});
