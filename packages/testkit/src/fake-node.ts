import { WebSocket } from "ws";
import { FrameInbox } from "./frame-inbox.ts";

// A host that speaks the wire protocol by hand, so router tests can send anything:
// valid frames, malformed ones, frames out of order, or nothing at all.

export interface FakeNodeOptions {
  url: string;
  secret?: string;
  headers?: Record<string, string>;
  maxPayload?: number;
}

export interface FakeNode {
  socket: WebSocket;
  inbox: FrameInbox;
  /** Resolves with the close code and reason once the socket closes. */
  closed: Promise<{ code: number; reason: string }>;
  send(frame: object | string): void;
  /** Sends `register` and waits for the router's answer. */
  register(fields?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Answers pings automatically (on by default after register). */
  autoPong(on: boolean): void;
  close(): void;
  /** Drops the TCP connection without a close frame, like a killed process. */
  kill(): void;
}

/** Opens the socket; rejects with the HTTP status on a refused upgrade (e.g. "401"). */
export async function connectFakeNode(options: FakeNodeOptions): Promise<FakeNode> {
  const headers = {
    ...(options.secret ? { Authorization: `Bearer ${options.secret}` } : {}),
    ...options.headers,
  };
  const socket = new WebSocket(options.url, {
    headers,
    perMessageDeflate: false,
    maxPayload: options.maxPayload ?? 64 * 1024 * 1024,
  });
  const inbox = new FrameInbox(socket);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_req, res) => {
      reject(new Error(String(res.statusCode)));
      socket.terminate();
    });
    socket.once("error", reject);
  });
  let pong = false;
  socket.on("message", (data) => {
    if (!pong) return;
    const frame = JSON.parse(data.toString()) as { type: string; ts?: number };
    if (frame.type === "ping") socket.send(JSON.stringify({ type: "pong", ts: frame.ts }));
  });
  const send = (frame: object | string) =>
    socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  return {
    socket,
    inbox,
    closed,
    send,
    async register(fields = {}) {
      send({
        type: "register",
        node_id: "fake-node",
        display_name: "Fake Node",
        serves_users: [],
        working_dir: "/tmp",
        capabilities: [],
        protocol_versions: [1],
        ...fields,
      });
      const answer = await inbox.next(["register_ok", "register_error"]);
      pong = answer.type === "register_ok";
      return answer;
    },
    autoPong(on) {
      pong = on;
    },
    close: () => socket.close(),
    kill: () => socket.terminate(),
  };
}
