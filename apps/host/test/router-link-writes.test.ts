import { channel } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { countSocketWrites, createTestLogger, type FakeRouter, startFakeRouter } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterLink } from "../src/link/router-link.ts";

// The host's link writes the frames of one turn in one write of its TCP socket, intact and in
// order, and a lone frame in its own turn — against a fake router over real sockets.

const SECRET = "host-writes-secret";

let router: FakeRouter;
let link: RouterLink;
/** The host's writes to the router's port: counted on the socket's own methods, which still run. */
let writes = 0;
let routerPort = 0;
/** Node announces each client socket it makes here (no prototype patched for every socket). */
const clientSockets = channel("net.client.socket");
const countWrites = (message: unknown) => {
  const socket = (message as { socket: Socket }).socket;
  countSocketWrites(socket, () => {
    if (socket.remotePort === routerPort) writes++;
  });
};

beforeAll(async () => {
  router = await startFakeRouter({ secret: SECRET });
  routerPort = Number(new URL(router.url).port);
  clientSockets.subscribe(countWrites);
  link = new RouterLink({
    url: router.url,
    nodeId: "laptop",
    secret: SECRET,
    maxPayloadBytes: 1024 * 1024,
    backoff: { baseMs: 50, maxMs: 1000 },
    logger: createTestLogger().logger,
  });
  link.start({
    registration: () => ({
      type: "register",
      node_id: "laptop",
      display_name: "Laptop",
      serves_users: [],
      working_dir: "/tmp",
      capabilities: [],
      protocol_versions: [3],
      sessions: [],
    }),
    frames: {} as never, // this test's router sends nothing a feature handles
    pushError: () => {},
  });
  await link.registered();
});

afterAll(async () => {
  clientSockets.unsubscribe(countWrites);
  await link.stop();
  await router.close();
});

const progress = (n: number) => ({ type: "progress", id: "r1", text: `step ${n}` }) as const;

describe("router link writes", () => {
  it("sends the frames of one turn (its microtasks too) in one write, intact and in order", async () => {
    const inbox = router.latest().inbox;
    await nextTurn();
    writes = 0;
    setImmediate(() => {
      for (let n = 0; n < 10; n++) link.send(progress(n));
      void Promise.resolve().then(() => {
        for (let n = 10; n < 20; n++) link.send(progress(n));
      });
    });
    await nextTurn();
    expect(writes).toBe(1);
    expect(link.bufferedAmount()).toBe(0);
    for (let n = 0; n < 20; n++) expect(await inbox.next("progress")).toMatchObject(progress(n));
  });

  it("sends a lone frame in its own turn", async () => {
    const inbox = router.latest().inbox;
    await nextTurn();
    writes = 0;
    setImmediate(() => link.send(progress(42)));
    await nextTurn();
    expect([writes, link.bufferedAmount()]).toEqual([1, 0]);
    expect(await inbox.next("progress")).toMatchObject(progress(42));
    expect(link.state).toBe("registered"); // the link is still up: nothing in the batch upset the router
  });
});
