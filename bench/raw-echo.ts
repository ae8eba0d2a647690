import type { AddressInfo } from "node:net";
import type { Cleanup } from "./cleanup.ts";
import type { RoundTrip } from "./closed-loop.ts";
import { WebSocket, WebSocketServer } from "./ws.ts";

// The baseline: a plain `ws` echo server and one `ws` client on loopback, in this process like the
// forwarding rig. Users share the client socket as chat users share the router's link to a host.

export async function startRawEcho(cleanup: Cleanup, messageBytes: number): Promise<RoundTrip> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  cleanup.add(() => new Promise((resolve) => server.close(resolve)));
  server.on("connection", (socket) =>
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })),
  );
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;

  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  cleanup.add(() => client.terminate());
  await new Promise((resolve, reject) => {
    client.once("open", resolve);
    client.once("error", reject);
  });

  // Each user has one message in flight, so its index (before the '|') says whose echo it is.
  const waiting = new Map<number, () => void>();
  client.on("message", (data) => {
    const text = String(data);
    const user = Number(text.slice(0, text.indexOf("|")));
    waiting.get(user)?.();
  });
  return (user) =>
    new Promise((resolve) => {
      waiting.set(user, resolve);
      const head = `${user}|`;
      client.send(head.padEnd(messageBytes, "x"));
    });
}
