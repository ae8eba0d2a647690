import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { FrameInbox } from "./frame-inbox.ts";
import { waitFor } from "./shared/wait-for.ts";

// A router that speaks just enough of the protocol for host tests: it checks the bearer
// secret (when given), opens each socket with a `challenge`, accepts `register`, and lets the
// test send frames, stay silent, or drop connections.

export interface FakeRouterOptions {
  /** Upgrades without this bearer secret get 401; undefined accepts any upgrade (key mode). */
  secret?: string;
  heartbeatIntervalS?: number;
  heartbeatTimeoutS?: number;
  /** Answer `register` automatically (default true). */
  acceptRegistrations?: boolean;
  /** The node's owners told in `register_ok` (default: none said, as an older router). */
  owners?: string[];
}

export interface FakeRouterConnection {
  socket: WebSocket;
  inbox: FrameInbox;
  send(frame: object): void;
}

export interface FakeRouter {
  url: string;
  connections: FakeRouterConnection[];
  /** Every `register` frame received, in order. */
  registrations: Array<Record<string, unknown>>;
  /** Count of upgrade attempts refused for a bad secret. */
  refused: number;
  /** The challenge nonce sent on each connection, in order. */
  nonces: string[];
  waitForRegistrations(count: number, timeoutMs?: number): Promise<void>;
  /** The newest connection. */
  latest(): FakeRouterConnection;
  /** Drops every connection without a close frame. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startFakeRouter(options: FakeRouterOptions): Promise<FakeRouter> {
  const connections: FakeRouterConnection[] = [];
  const registrations: Array<Record<string, unknown>> = [];
  let refused = 0;
  const nonces: string[] = [];
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    path: "/ws/node",
    verifyClient: (info, done) => {
      const ok =
        options.secret === undefined || info.req.headers.authorization === `Bearer ${options.secret}`;
      if (!ok) refused++;
      done(ok, 401, "Unauthorized");
    },
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (socket) => {
    const inbox = new FrameInbox(socket);
    const send = (frame: object) => socket.send(JSON.stringify(frame));
    connections.push({ socket, inbox, send });
    const nonce = randomBytes(24).toString("base64url");
    nonces.push(nonce);
    send({ type: "challenge", nonce, protocol_versions: [3] });
    socket.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      if (frame.type !== "register") return;
      registrations.push(frame);
      if (options.acceptRegistrations === false) return;
      send({
        type: "register_ok",
        protocol_version: 3,
        node_id: frame.node_id,
        heartbeat_interval_s: options.heartbeatIntervalS ?? 30,
        heartbeat_timeout_s: options.heartbeatTimeoutS ?? 10,
        max_payload_bytes: 1024 * 1024,
        ...(options.owners ? { owners: options.owners } : {}),
      });
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/ws/node`,
    connections,
    registrations,
    get refused() {
      return refused;
    },
    nonces,
    async waitForRegistrations(count, timeoutMs = 10_000) {
      await waitFor(() => registrations.length >= count, { timeoutMs, message: `${count} registrations` });
    },
    latest() {
      const last = connections.at(-1);
      if (!last) throw new Error("no connection yet");
      return last;
    },
    dropAll() {
      for (const connection of connections) connection.socket.terminate();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
