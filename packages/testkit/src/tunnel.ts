import type { AddressInfo } from "node:net";
import { createServer, Socket } from "node:net";

// A TCP hop standing in for the public address in front of a router (a reverse proxy, a tunnel):
// its URL exists before the router is started (a webhook URL is given at start), and it forwards
// to whatever port `target` names once the router listens on its port 0.

export interface Tunnel {
  /** http://127.0.0.1:<port> */
  url: string;
  target(port: number): void;
  close(): Promise<void>;
}

export async function startTunnel(): Promise<Tunnel> {
  let targetPort: number | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    if (targetPort === undefined) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.connect(targetPort, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    target: (next) => {
      targetPort = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
