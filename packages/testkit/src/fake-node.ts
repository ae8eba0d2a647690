import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { NODE_ID_HEADER, nodeAuthPayload } from "@phonework/protocol";
import { WebSocket } from "ws";
import { FrameInbox } from "./frame-inbox.ts";

// A host that speaks the wire protocol by hand, so router tests can send anything:
// valid frames, malformed ones, frames out of order, or nothing at all.

export interface FakeNodeOptions {
  url: string;
  secret?: string;
  /** The node id named when connecting (NODE_ID_HEADER), as a host does; a keyed host needs one the router expects. */
  nodeId?: string;
  headers?: Record<string, string>;
  maxPayload?: number;
  /** The source address to dial from (any of 127/8 on Linux), to stand apart from other clients. */
  localAddress?: string;
}

export interface FakeNode {
  socket: WebSocket;
  inbox: FrameInbox;
  /** Resolves with the close code and reason once the socket closes. */
  closed: Promise<{ code: number; reason: string }>;
  send(frame: object | string): void;
  /** Sends `register` and waits for the router's answer. */
  register(fields?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Waits for the router's challenge, signs it with `key` and registers as `nodeId` (with a join
   * code the first time). Resolves with the router's answer.
   */
  registerWithKey(
    key: NodeKey,
    nodeId: string,
    options?: { joinCode?: string; fields?: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
  /**
   * Sends a second `register`, which the router refuses at once (BAD_FRAME, already registered),
   * and waits for that answer: the router has then handled everything this node sent before, and
   * whatever it sent this node because of it has arrived. The inbox's cursor is left where it was.
   */
  roundTrip(timeoutMs?: number): Promise<void>;
  /** Answers pings automatically (on by default after register). */
  autoPong(on: boolean): void;
  close(): void;
  /** Drops the TCP connection without a close frame, like a killed process. */
  kill(): void;
}

/** An Ed25519 key pair as a node holds it. */
export interface NodeKey {
  privateKey: KeyObject;
  /** SPKI DER, base64. */
  publicKey: string;
}

export function makeNodeKey(): NodeKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64") };
}

/** The `auth` field of a register frame: `key`'s signature over the router's nonce. */
export function signChallenge(key: NodeKey, nonce: string, nodeId: string, joinCode?: string) {
  const signature = sign(null, Buffer.from(nodeAuthPayload(nonce, nodeId, key.publicKey)), key.privateKey);
  return {
    public_key: key.publicKey,
    signature: signature.toString("base64"),
    ...(joinCode ? { join_code: joinCode } : {}),
  };
}

/** Opens the socket; rejects with the HTTP status on a refused upgrade (e.g. "401"). */
export async function connectFakeNode(options: FakeNodeOptions): Promise<FakeNode> {
  const headers = {
    ...(options.secret ? { Authorization: `Bearer ${options.secret}` } : {}),
    ...(options.nodeId ? { [NODE_ID_HEADER]: options.nodeId } : {}),
    ...options.headers,
  };
  const socket = new WebSocket(options.url, {
    headers,
    perMessageDeflate: false,
    maxPayload: options.maxPayload ?? 64 * 1024 * 1024,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
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
  // A host's display name is its id unless it sets one (two fake nodes do not share a name).
  const registerFrame = (fields: Record<string, unknown>) => ({
    type: "register",
    node_id: "fake-node",
    display_name: String(fields.node_id ?? "fake-node"),
    serves_users: [],
    working_dir: "/tmp",
    capabilities: [],
    protocol_versions: [3],
    ...fields,
  });
  const answer = async () => {
    const reply = await inbox.next(["register_ok", "register_error"]);
    pong = reply.type === "register_ok";
    return reply;
  };
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
      send(registerFrame(fields));
      return answer();
    },
    async registerWithKey(key, nodeId, options = {}) {
      const challenge = await inbox.next("challenge");
      const auth = signChallenge(key, String(challenge.nonce), nodeId, options.joinCode);
      send(registerFrame({ node_id: nodeId, display_name: nodeId, auth, ...options.fields }));
      return answer();
    },
    async roundTrip(timeoutMs = 5000) {
      const from = inbox.frames.length;
      send(registerFrame({}));
      await inbox.arrival(
        "error",
        (frame) => String(frame.message).startsWith("already registered"),
        from,
        timeoutMs,
      );
    },
    autoPong(on) {
      pong = on;
    },
    close: () => socket.close(),
    kill: () => socket.terminate(),
  };
}
