import { CloseCode, decodeFrame, dispatchFrame, type FrameHandlers, HostFrame } from "@phonework/protocol";
import type { RawData, WebSocket } from "ws";
import type { FrameTable } from "../contracts/node-frames.ts";
import { type HandshakeContext, NodeHandshake, type SocketOrigin } from "./handshake.ts";
import type { NodeConnection } from "./node-connection.ts";
import { rawText } from "./raw-text.ts";

// The life of one node socket: the handshake (handshake.ts), then every frame the registered node
// sends. The socket itself answers `register` (once is enough) and `pong`; every other type goes
// through the features' merged table, one handler per frame type.
// What a socket keeps is kept once per connected host, for days, ten thousand times over after a
// restart: so one object with shared methods and three listeners, the handshake's state let go at
// registration, and the features' table (a closure per frame type, and the child logger it is
// given) made at the first frame that needs it — an idle host only ever sends pongs.

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

export function acceptNodeSocket(socket: WebSocket, ctx: NodeSocketContext, origin: SocketOrigin): void {
  const node = new NodeSocket(socket, ctx, origin);
  socket.on("message", (data, isBinary) => node.message(data, isBinary));
  socket.on("close", (code, reason) => node.closed(code, reason));
  socket.on("error", (error) => node.failed(error));
}

class NodeSocket {
  private connection: NodeConnection | undefined;
  /** Handshake-only state (nonce, timer, origin and its callbacks), let go once the node registers. */
  private handshake: NodeHandshake | undefined;
  /** The features' handlers, made at the first frame that needs them. */
  private features: FrameHandlers<FeatureFrame> | undefined;
  /** Frames that came while the first one waits for its turn (see SocketOrigin.paceRegistration). */
  private waiting: string[] | undefined;
  /** Not `origin` itself: its onRegistered would be kept with the socket. */
  private readonly paceRegistration: SocketOrigin["paceRegistration"];

  constructor(
    private readonly socket: WebSocket,
    private readonly ctx: NodeSocketContext,
    origin: SocketOrigin,
  ) {
    this.paceRegistration = origin.paceRegistration;
    this.handshake = new NodeHandshake(socket, ctx, origin, (live) => {
      this.connection = live;
      this.handshake = undefined;
    });
  }

  /** Answered (a probe) or refused and closing: nothing it sends now can register. */
  private get deaf(): boolean {
    return (
      !this.connection && (this.handshake?.probed === true || this.socket.readyState !== this.socket.OPEN)
    );
  }

  message(data: RawData, isBinary: boolean): void {
    if (this.deaf) return;
    if (isBinary) {
      if (this.connection)
        this.connection.send({
          type: "error",
          code: "BAD_FRAME",
          message: "binary frames are not supported",
        });
      else this.socket.close(CloseCode.POLICY_VIOLATION, "expected a register frame first");
      return;
    }
    const raw = rawText(data);
    if (this.waiting) {
      if (this.waiting.push(raw) > MAX_WAITING_FRAMES)
        this.socket.close(CloseCode.POLICY_VIOLATION, "frames sent before the register was answered");
      return;
    }
    if (this.connection) {
      this.handle(raw);
      return;
    }
    this.waiting = [raw];
    this.paceRegistration(() => {
      const frames = this.waiting ?? [];
      this.waiting = undefined;
      for (const frame of frames) if (!this.deaf) this.handle(frame);
    });
  }

  private handle(raw: string): void {
    if (this.connection) this.receive(this.connection, raw);
    else this.handshake?.receive(raw);
  }

  /** A frame of the registered node. */
  private receive(live: NodeConnection, raw: string): void {
    const { ctx } = this;
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
      this.features ??= ctx.frames({
        nodeId: live.nodeId,
        pending: live.pending,
        log: ctx.logger.child({ nodeId: live.nodeId }),
      });
      dispatchFrame(this.features, frame);
    }
  }

  closed(code: number, reason: Buffer): void {
    this.handshake?.dispose();
    const { connection } = this;
    if (!connection) return;
    connection.dispose();
    const nodeId = connection.nodeId;
    const wentOffline = this.ctx.registry.detach(nodeId, connection);
    this.ctx.logger.info({ nodeId, code, reason: reason.toString(), wentOffline }, "node socket closed");
  }

  /**
   * What @fastify/websocket did with these sockets before they were upgraded apart from it
   * (node-websocket.ts): log, and cut the connection without waiting for a closing handshake.
   */
  failed(error: Error): void {
    this.ctx.logger.warn({ nodeId: this.connection?.nodeId, err: error }, "node socket error");
    this.socket.terminate();
  }
}
