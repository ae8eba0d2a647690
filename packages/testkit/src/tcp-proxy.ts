import type { AddressInfo } from "node:net";
import { createServer, Socket } from "node:net";

// A TCP hop between two real endpoints that a test can break: drop every connection
// (like a killed process or lost Wi-Fi) or stall it (packets stop, nothing closes).

export interface TcpProxy {
  port: number;
  /** Rewrites a ws://host:port/... URL to go through the proxy. */
  wrap(url: string): string;
  /** Destroys every connection on both sides at once. */
  dropAll(): void;
  /** Stops moving bytes without closing anything, until `resume()`. */
  stall(): void;
  resume(): void;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const pipe = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (!stalled) to.write(chunk);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    wrap: (url) => url.replace(/\/\/[^/]+/, `//127.0.0.1:${port}`),
    dropAll() {
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
    },
    get connections() {
      return pairs.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
