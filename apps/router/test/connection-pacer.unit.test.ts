import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionPacer, type PacerLimits } from "../src/front-door/connection-pacer.ts";

// The pacer in front of a real HTTP server on port 0, with raw TCP clients: how many request heads
// one turn of the event loop reads, what waits unread, what is refused with a static 503, and how a
// silent connection gives way to one that is waiting.

const REQUEST = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

interface Client {
  socket: Socket;
  received: () => string;
  closed: () => boolean;
}

let servers: Server[] = [];
let clients: Socket[] = [];
afterEach(async () => {
  for (const socket of clients) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
  clients = [];
});

async function pacedServer(limits: PacerLimits) {
  const refused: string[] = [];
  let requests = 0;
  /** Each request's socket's 'close' listeners, as the HTTP server's handler sees them. */
  const closeListeners: number[] = [];
  const server = createServer((request, response) => {
    requests++;
    closeListeners.push(request.socket.listenerCount("close"));
    response.end("hello");
  });
  const pacer = new ConnectionPacer(limits, {
    now: Date.now,
    retryAfter: () => "3",
    onRefused: (_address, why) => refused.push(why),
  });
  pacer.attach(server);
  const client = await listening(server);
  return { server, pacer, client, refused, closeListeners, requests: () => requests };
}

/** Listens on port 0 (closed after the test); returns a maker of raw TCP clients to it. */
async function listening(server: Server) {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return (request: string | undefined, localAddress = "127.0.0.1"): Client => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    clients.push(socket);
    let received = "";
    let closed = false;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
    });
    if (request) socket.on("connect", () => socket.write(request));
    return { socket, received: () => received, closed: () => closed };
  };
}

/** The 'close' listeners a plain HTTP server's request socket has, without a pacer. */
async function unpacedCloseListeners(): Promise<number> {
  let count = -1;
  const server = createServer((request, response) => {
    count = request.socket.listenerCount("close");
    response.end("hello");
  });
  (await listening(server))(REQUEST);
  await waitFor(() => count >= 0);
  return count;
}

describe("the connection pacer", () => {
  it("reads no more request heads per turn than its share, however many arrive at once", async () => {
    const t = await pacedServer({
      maxReading: 4,
      maxReadingPerAddress: 100,
      perTurn: 4,
      maxQueued: 1_000,
      maxWaitMs: 60_000,
      staleMs: 60_000,
    });
    let thisTurn = 0;
    let most = 0;
    t.server.prependListener("request", () => {
      thisTurn++;
      most = Math.max(most, thisTurn);
    });
    let counting = true;
    const everyTurn = () => {
      thisTurn = 0;
      if (counting) setImmediate(everyTurn);
    };
    everyTurn();
    const burst = Array.from({ length: 60 }, () => t.client(REQUEST));
    await waitFor(() => burst.every((c) => c.received().includes("hello")), { timeoutMs: 10_000 });
    counting = false;
    expect(t.requests()).toBe(60);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
  });

  it("keeps waiting connections unread, refuses past the queue with a static 503, and serves the rest in turn", async () => {
    const t = await pacedServer({
      maxReading: 2,
      maxReadingPerAddress: 100,
      perTurn: 8,
      maxQueued: 3,
      maxWaitMs: 60_000,
      staleMs: 60_000,
    });
    const silent = [t.client(undefined), t.client(undefined)];
    await waitFor(() => t.pacer.waiting === 0 && silent.every((c) => c.socket.readyState === "open"));
    const waiting = [t.client(REQUEST), t.client(REQUEST), t.client(REQUEST)];
    await waitFor(() => t.pacer.waiting === 3);
    const over = t.client(REQUEST);
    await waitFor(() => over.closed(), { message: "the one past the queue to be answered and closed" });
    expect(over.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over.received()).toContain("\r\nRetry-After: 3\r\n");
    expect(over.received()).toContain('"error":"BUSY"');
    expect(t.refused).toEqual(["queue full"]);
    // Their requests were sent, but nothing of theirs has been read.
    expect(t.requests()).toBe(0);
    for (const c of waiting) expect(c.received()).toBe("");

    for (const c of silent) c.socket.write(REQUEST);
    await waitFor(() => [...silent, ...waiting].every((c) => c.received().includes("hello")));
    expect(t.requests()).toBe(5);
    expect(t.pacer.waiting).toBe(0);
  });

  it("drops a connection silent past staleMs when another is waiting, and not before", async () => {
    const t = await pacedServer({
      maxReading: 1,
      maxReadingPerAddress: 100,
      perTurn: 8,
      maxQueued: 10,
      maxWaitMs: 60_000,
      staleMs: 200,
    });
    const silent = t.client(undefined);
    await waitFor(() => silent.socket.readyState === "open");
    const started = Date.now();
    const waiting = t.client(REQUEST);
    await waitFor(() => waiting.received().includes("hello"), { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await waitFor(() => silent.closed());
    expect(t.refused).toEqual(["stale"]);
  });

  it("a slowloris head keeps its place only while nobody waits; a legitimate request then gets through", async () => {
    const t = await pacedServer({
      maxReading: 2,
      maxReadingPerAddress: 100,
      perTurn: 8,
      maxQueued: 10,
      maxWaitMs: 60_000,
      staleMs: 200,
    });
    const slow = [t.client("GET / HTTP/1.1\r\n"), t.client("GET / HTTP/1.1\r\nX-A: 1\r\n")];
    await waitFor(() => slow.every((c) => c.socket.readyState === "open"));
    const legit = t.client(REQUEST);
    await waitFor(() => legit.received().includes("hello"), { timeoutMs: 5_000 });
    expect(t.refused).toContain("stale");
  });

  it("refuses a connection that waited maxWaitMs rather than hand it on", async () => {
    const t = await pacedServer({
      maxReading: 1,
      maxReadingPerAddress: 100,
      perTurn: 8,
      maxQueued: 10,
      maxWaitMs: 200,
      staleMs: 60_000,
    });
    const silent = t.client(undefined);
    await waitFor(() => silent.socket.readyState === "open");
    const waiting = t.client(REQUEST);
    await waitFor(() => waiting.closed(), { timeoutMs: 5_000, message: "the waiting one to be refused" });
    expect(waiting.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(t.refused).toEqual(["waited too long"]);
    expect(t.requests()).toBe(0);
    expect(silent.closed()).toBe(false);
  });

  it("one address holds at most its share of places: another's request is read while its silent ones wait", async () => {
    const t = await pacedServer({
      maxReading: 8,
      maxReadingPerAddress: 2,
      perTurn: 8,
      maxQueued: 100,
      maxWaitMs: 60_000,
      staleMs: 60_000,
    });
    const flood = Array.from({ length: 10 }, () => t.client(undefined, "127.0.0.9"));
    await waitFor(() => flood.every((c) => c.socket.readyState === "open") && t.pacer.waiting === 8);
    const legit = t.client(REQUEST);
    await waitFor(() => legit.received().includes("hello"), { timeoutMs: 5_000 });
    expect(t.refused).toEqual([]); // nobody had to give way: the flood never had more than its 2
    expect(t.pacer.waiting).toBe(8);
  });

  it("keeps nothing of its own on a connection once its head is read (a host's socket lives for days)", async () => {
    const t = await pacedServer({
      maxReading: 1,
      maxReadingPerAddress: 100,
      perTurn: 8,
      maxQueued: 100,
      maxWaitMs: 60_000,
      staleMs: 60_000,
    });
    // The first is handed at once; the others wait in the queue, then are handed in turn.
    const served = [t.client(REQUEST), t.client(REQUEST), t.client(REQUEST)];
    await waitFor(() => served.every((c) => c.received().includes("hello")));
    const plain = await unpacedCloseListeners();
    expect(t.closeListeners).toEqual([plain, plain, plain]);
  });
});
