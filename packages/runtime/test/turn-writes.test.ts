import { once } from "node:events";
import { createServer, type Server, Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { countSocketWrites, waitFor } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_HELD_BYTES, TurnWrites } from "../src/turn-writes.ts";

// TurnWrites over a real TCP pair on loopback: what one turn writes leaves in one write, in
// order, and a lone write is not held past its turn.

let server: Server;
const accepted: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => accepted.push(socket));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
});

afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A connected client whose writes to the kernel are counted, and what its peer has read. */
async function pair() {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const client = new Socket();
  client.setNoDelay(true);
  const peerCount = accepted.length;
  client.connect(address.port, "127.0.0.1");
  await once(client, "connect");
  while (accepted.length === peerCount) await nextTurn();
  const peer = accepted[accepted.length - 1] as Socket;
  let received = "";
  peer.setEncoding("utf8").on("data", (chunk: string) => {
    received += chunk;
  });
  let writes = 0;
  countSocketWrites(client, () => writes++);
  return { client, received: () => received, writes: () => writes };
}

describe("TurnWrites", () => {
  it("writes everything one turn sent (its microtasks too) in one write, in order", async () => {
    const writes = new TurnWrites();
    const { client, received, writes: count } = await pair();
    let sent = "";
    const send = (text: string) => {
      writes.hold(client);
      client.write(text);
      sent += text;
    };
    let countInMicrotasks = -1;
    // From a macrotask, as a socket read is: its code, then its ticks, then its microtasks.
    setImmediate(() => {
      send("a;");
      send("b;");
      void Promise.resolve().then(() => send("c;"));
      void Promise.resolve()
        .then(() => undefined)
        .then(() => {
          send("d;");
          countInMicrotasks = count();
        });
      process.nextTick(() => send("e;"));
    });
    await nextTurn();
    expect(countInMicrotasks).toBe(0); // still held while the turn's microtasks ran
    expect(count()).toBe(1);
    expect(client.writableLength).toBe(0);
    expect(sent).toBe("a;b;e;c;d;");
    await waitFor(() => received().length >= sent.length);
    expect(received()).toBe(sent);
    // Without the batch, the same five writes are five writes.
    for (const text of ["1", "2", "3", "4", "5"]) client.write(text);
    await nextTurn();
    expect(count()).toBe(6);
    client.destroy();
  });

  it("a lone write leaves in its own turn, before the next turn's I/O and timers", async () => {
    const writes = new TurnWrites();
    const { client, received, writes: count } = await pair();
    setImmediate(() => {
      writes.hold(client);
      client.write("lone");
    });
    // setImmediate is queued after the one above: it runs in the same check phase, after the
    // write's turn, and before any I/O of the next loop.
    await nextTurn();
    expect(count()).toBe(1);
    expect(client.writableLength).toBe(0);
    await waitFor(() => received() === "lone");
    client.destroy();
  });

  it("batches several sockets in one turn, each with one write", async () => {
    const writes = new TurnWrites();
    const a = await pair();
    const b = await pair();
    for (let i = 0; i < 10; i++)
      for (const { client } of [a, b]) {
        writes.hold(client);
        client.write(`${i},`);
      }
    await nextTurn();
    expect([a.writes(), b.writes()]).toEqual([1, 1]);
    const expected = "0,1,2,3,4,5,6,7,8,9,";
    await waitFor(() => a.received() === expected && b.received() === expected);
    a.client.destroy();
    b.client.destroy();
  });

  it("writes a batch at once past MAX_HELD_BYTES, so a writer watching the backlog is not held", async () => {
    const writes = new TurnWrites();
    const { client, received, writes: count } = await pair();
    const chunk = "x".repeat(MAX_HELD_BYTES / 2);
    for (let i = 0; i < 4; i++) {
      writes.hold(client);
      client.write(chunk);
    }
    expect(count()).toBe(1); // the first two went when the third came
    expect(client.writableLength).toBeLessThanOrEqual(MAX_HELD_BYTES);
    await nextTurn();
    expect(count()).toBe(2);
    await waitFor(() => received().length === chunk.length * 4);
    client.destroy();
  });

  it("a socket ended while corked writes what it held first; one destroyed fails its held writes", async () => {
    const writes = new TurnWrites();
    const ended = await pair();
    writes.hold(ended.client);
    ended.client.write("kept;");
    writes.hold(ended.client);
    ended.client.end("last");
    await waitFor(() => ended.received() === "kept;last");

    const destroyed = await pair();
    const errors: unknown[] = [];
    writes.hold(destroyed.client);
    destroyed.client.write("held", (error) => errors.push(error));
    destroyed.client.destroy();
    await nextTurn();
    expect(errors).toEqual([expect.objectContaining({ code: "ERR_STREAM_DESTROYED" })]);
    expect(destroyed.writes()).toBe(0);
    // The batch goes on for other sockets.
    const other = await pair();
    writes.hold(other.client);
    other.client.write("after");
    await waitFor(() => other.received() === "after");
    other.client.destroy();
  });
  it("a stream whose uncork throws leaves no other stream corked, and later turns still release", async () => {
    // One TurnWrites serves every node socket of a process: a throw in one uncork must neither
    // strand the turn's other sockets corked nor keep the batcher from releasing later turns.
    const writes = new TurnWrites();
    const fake = (throwOnce: boolean) => {
      const stream = {
        corked: 0,
        writableLength: 0,
        cork: () => void stream.corked++,
        uncork: () => {
          stream.corked--;
          if (throwOnce) {
            throwOnce = false;
            throw new Error("uncork failed");
          }
        },
      };
      return stream;
    };
    const bad = fake(true);
    const good = fake(false);
    // The release runs from a process.nextTick: caught here, so its throw is this test's to see.
    const ticks: Array<() => void> = [];
    const spy = vi.spyOn(process, "nextTick").mockImplementation(((callback: () => void) => {
      ticks.push(callback);
    }) as typeof process.nextTick);
    try {
      writes.hold(bad);
      writes.hold(good);
      await Promise.resolve(); // the microtask hold queued has run: the release is queued
    } finally {
      spy.mockRestore();
    }
    expect(ticks).toHaveLength(1);
    expect(() => ticks[0]?.()).toThrow("uncork failed");
    expect([bad.corked, good.corked]).toEqual([0, 0]);
    writes.hold(good);
    expect(good.corked).toBe(1);
    await nextTurn();
    expect(good.corked).toBe(0);
  });
});
