import { CloseCode, decodeFrame, dispatchFrame, type FrameHandlers, HostFrame } from "@phonework/protocol";
import type { WebSocket } from "ws";
import type { FrameTable } from "../contracts/node-frames.ts";
import { type HandshakeContext, NodeHandshake, type SocketOrigin } from "./handshake.ts";
import type { NodeConnection } from "./node-connection.ts";
import { rawText } from "./raw-text.ts";

// The life of one node socket: the handshake (handshake.ts), then every frame the registered node
// sends, dispatched through one table with one handler per frame type. The socket itself owns
// `register` (once is enough) and `pong`; every other type belongs to a feature's table.

export type { SocketOrigin } from "./handshake.ts";

/** Frames a socket may send after its register and before the router has answered it. */
const MAX_WAITING_FRAMES = 8;

/** Frames the socket answers itself. */
type LinkFrame = Extract<HostFrame, { type: "register" | "pong" }>;
/** Frames a feature handles: every other frame a host sends. */
export type FeatureFrame = Exclude<HostFrame, LinkFrame>;

export interface NodeSocketContext extends HandshakeContext {
  /** The features' frame tables, merged (mergeFrameTables): one handler for each FeatureFrame type. */
  frames: FrameTable<FeatureFrame>;
}

/**
 * Every frame of a registered node. The socket answers `register` and `pong` itself; the features'
 * table, and the child logger it is given, are made for a connection at its first other frame: an
 * idle host only ever sends pongs, and a table is a closure per frame type (a dozen) plus the object
 * holding them, kept as long as the socket — ten thousand idle hosts need none of them.
 */
function frameReceiver(live: NodeConnection, ctx: NodeSocketContext): (raw: string) => void {
  let features: FrameHandlers<FeatureFrame> | undefined;
  const featureHandlers = () => {
    const log = ctx.logger.child({ nodeId: live.nodeId });
    return ctx.frames({ nodeId: live.nodeId, pending: live.pending, log });
  };
  return (raw) => {
    ctx.registry.touch(live.nodeId);
    const decoded = decodeFrame(raw, HostFrame);
    if (!decoded.ok) {
      ctx.logger.warn({ nodeId: live.nodeId, error: decoded.message }, "bad frame from node");
      live.send({ type: "error", code: decoded.code, message: decoded.message });
      return;
    }
    const frame = decoded.frame;
    if (frame.type === "pong") live.pongReceived();
    else if (frame.type === "register")
      live.send({ type: "error", code: "BAD_FRAME", message: `already registered as '${live.nodeId}'` });
    else {
      features ??= featureHandlers();
      dispatchFrame(features, frame);
    }
  };
}

export function acceptNodeSocket(socket: WebSocket, ctx: NodeSocketContext, origin: SocketOrigin): void {
  let connection: NodeConnection | undefined;
  let receive: ((raw: string) => void) | undefined;
  // Handshake-only state (nonce, timer, origin and its callbacks), let go once the node registers.
  let handshake: NodeHandshake | undefined = new NodeHandshake(socket, ctx, origin, (live) => {
    connection = live;
    receive = frameReceiver(live, ctx);
    handshake = undefined;
  });

  // Answered (a probe) or refused and closing: nothing it sends now can register.
  const deaf = () => !connection && (handshake?.probed === true || socket.readyState !== socket.OPEN);
  /** Frames that came while the first one waits for its turn (see SocketOrigin.paceRegistration). */
  let waiting: string[] | undefined;
  // Not `origin` itself in the listeners below: its onRegistered would be kept with them.
  const { paceRegistration } = origin;
  const handle = (raw: string) => (receive ? receive(raw) : handshake?.receive(raw));

  socket.on("message", (data, isBinary) => {
    if (deaf()) return;
    if (isBinary) {
      if (connection)
        connection.send({ type: "error", code: "BAD_FRAME", message: "binary frames are not supported" });
      else socket.close(CloseCode.POLICY_VIOLATION, "expected a register frame first");
      return;
    }
    const raw = rawText(data);
    if (waiting) {
      if (waiting.push(raw) > MAX_WAITING_FRAMES)
        socket.close(CloseCode.POLICY_VIOLATION, "frames sent before the register was answered");
      return;
    }
    if (receive || !paceRegistration) {
      handle(raw);
      return;
    }
    waiting = [raw];
    paceRegistration(() => {
      const frames = waiting ?? [];
      waiting = undefined;
      for (const frame of frames) if (!deaf()) handle(frame);
    });
  });

  socket.on("close", (code, reason) => {
    handshake?.dispose();
    if (!connection) return;
    connection.dispose();
    const nodeId = connection.nodeId;
    const wentOffline = ctx.registry.detach(nodeId, connection);
    ctx.logger.info({ nodeId, code, reason: reason.toString(), wentOffline }, "node socket closed");
  });

  // What @fastify/websocket did with these sockets before they were upgraded apart from it
  // (node-websocket.ts): log, and cut the connection without waiting for a closing handshake.
  socket.on("error", (error) => {
    ctx.logger.warn({ nodeId: connection?.nodeId, err: error }, "node socket error");
    socket.terminate();
  });
}
