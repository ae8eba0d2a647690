import { once } from "node:events";
import type { Socket } from "node:net";
import { decodeFrame, RouterFrame } from "@phonework/protocol";
import { createLogger, TurnWrites } from "@phonework/runtime";
import { countSocketWrites, waitFor } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { NodeConnection } from "../src/node-link/node-connection.ts";

// A node connection's frames over a real ws pair on loopback: the frames of one turn leave in one
// write of the TCP socket, intact and in order; a lone frame leaves in its turn; a socket closed
// mid-batch still sends what it held, and one cut off fails what waits on it.

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const logger = createLogger({ level: "silent" });
const backpressure = { maxPending: 1000, slowSocketBytes: 8 * 1024 * 1024, slowSocketMs: 10_000 };

let server: WebSocketServer;
let port: number;
const writes = new TurnWrites();

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise((resolve) => server.close(resolve));
});

/** A NodeConnection on the server end of a fresh pair; the host end collects what it is sent. */
async function connect() {
  const accepted = once(server, "connection") as Promise<[WebSocket, { socket: Socket }]>;
  const host = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  const [socket, request] = await accepted;
  await once(host, "open");
  const tcp = request.socket;
  const connection = new NodeConnection(socket, "n1", logger, backpressure, tcp, writes);
  socket.on("close", () => connection.dispose());
  const frames: RouterFrame[] = [];
  host.on("message", (data) => {
    const decoded = decodeFrame(String(data), RouterFrame);
    if (decoded.ok) frames.push(decoded.frame);
  });
  let count = 0;
  countSocketWrites(tcp, () => count++);
  return { host, socket, tcp, connection, frames, writes: () => count };
}

const ping = (ts: number) => ({ type: "ping", ts }) as const;

describe("node connection writes", () => {
  it("sends the frames of one turn (its microtasks too) in one write, intact and in order", async () => {
    const { connection, frames, writes: count, tcp } = await connect();
    setImmediate(() => {
      for (let ts = 0; ts < 20; ts++) connection.send(ping(ts));
      void Promise.resolve().then(() => {
        for (let ts = 20; ts < 40; ts++) connection.send(ping(ts));
      });
    });
    await nextTurn();
    expect(count()).toBe(1);
    expect(tcp.writableLength).toBe(0);
    await waitFor(() => frames.length === 40);
    expect(frames).toEqual(Array.from({ length: 40 }, (_, ts) => ping(ts)));
  });

  it("sends a lone frame in its own turn", async () => {
    const { connection, frames, writes: count, tcp } = await connect();
    setImmediate(() => connection.send(ping(7)));
    await nextTurn();
    expect([count(), tcp.writableLength]).toEqual([1, 0]);
    await waitFor(() => frames.length === 1);
    expect(frames).toEqual([ping(7)]);
  });

  it("a close in the middle of a batch still sends what was held, then closes", async () => {
    const { host, connection, frames } = await connect();
    const closed = once(host, "close");
    setImmediate(() => {
      for (let ts = 0; ts < 5; ts++) connection.send(ping(ts));
      connection.close(1000, "bye");
      expect(connection.send(ping(99))).toBe(false); // not open: refused, not lost silently
    });
    const [code] = await closed;
    expect(code).toBe(1000);
    expect(frames).toEqual(Array.from({ length: 5 }, (_, ts) => ping(ts)));
  });

  it("a socket cut off mid-batch fails the requests waiting on it with NODE_OFFLINE", async () => {
    const { socket, connection } = await connect();
    const answer = connection.forward(
      { type: "forward", id: "r1", user_id: "u", chat_id: "c", platform: "t", text: "hi" },
      { timeoutMs: 10_000 },
    );
    socket.terminate();
    await expect(answer).rejects.toMatchObject({ code: "NODE_OFFLINE" });
  });
});
