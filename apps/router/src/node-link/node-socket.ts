import { CloseCode, decodeFrame, dispatchFrame, type FrameHandlers, HostFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { WebSocket } from "ws";
import { type FrameTable, mergeFrameTables } from "../contracts/node-frames.ts";
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

/** `register` and `pong`, on a registered connection. */
function linkFrames(live: NodeConnection): FrameTable<LinkFrame> {
  return () => ({
    register: () =>
      live.send({ type: "error", code: "BAD_FRAME", message: `already registered as '${live.nodeId}'` }),
    pong: () => live.pongReceived(),
  });
}

/** Every frame of a registered node, through the table. */
function frameReceiver(live: NodeConnection, log: Logger, ctx: NodeSocketContext): (raw: string) => void {
  const handlers: FrameHandlers<HostFrame> = mergeFrameTables(
    linkFrames(live),
    ctx.frames,
  )({ nodeId: live.nodeId, pending: live.pending, log });
  return (raw) => {
    ctx.registry.touch(live.nodeId);
    const decoded = decodeFrame(raw, HostFrame);
    if (!decoded.ok) {
      log.warn({ error: decoded.message }, "bad frame from node");
      live.send({ type: "error", code: decoded.code, message: decoded.message });
      return;
    }
    dispatchFrame(handlers, decoded.frame);
  };
}

export function acceptNodeSocket(socket: WebSocket, ctx: NodeSocketContext, origin: SocketOrigin): void {
  let connection: NodeConnection | undefined;
  let receive: ((raw: string) => void) | undefined;
  let log = ctx.logger;
  const handshake = new NodeHandshake(socket, ctx, origin, (live, liveLog) => {
    connection = live;
    log = liveLog;
    receive = frameReceiver(live, liveLog, ctx);
  });

  // Answered (a probe) or refused and closing: nothing it sends now can register.
  const deaf = () => handshake.probed || (!connection && socket.readyState !== socket.OPEN);
  const handle = (raw: string) => (receive ? receive(raw) : handshake.receive(raw));
  /** Frames that came while the first one waits for its turn (see SocketOrigin.paceRegistration). */
  let waiting: string[] | undefined;

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
    if (receive || !origin.paceRegistration) {
      handle(raw);
      return;
    }
    waiting = [raw];
    origin.paceRegistration(() => {
      const frames = waiting ?? [];
      waiting = undefined;
      for (const frame of frames) if (!deaf()) handle(frame);
    });
  });

  socket.on("close", (code, reason) => {
    handshake.dispose();
    if (!connection) return;
    connection.dispose();
    const wentOffline = ctx.registry.detach(connection.nodeId, connection);
    log.info({ code, reason: reason.toString(), wentOffline }, "node socket closed");
  });

  socket.on("error", (error) => log.warn({ err: error }, "node socket error"));
}
