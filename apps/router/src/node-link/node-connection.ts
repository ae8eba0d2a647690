import { encodeFrame, type ForwardFrame, type RouterFrame, WireError } from "@phonework/protocol";
import type { Clock, CorkableStream, Logger, TurnWrites } from "@phonework/runtime";
import { WebSocket } from "ws";
import type { NodeAnswer } from "../contracts/node-answer.ts";
import { PendingRequests, type ProgressListener } from "../rpc/pending-requests.ts";

// A registered node's socket: sending frames, its table of pending requests, and its heartbeat.
// Frames sent in one turn of the event loop leave in one write (TurnWrites: the TCP socket is
// corked until the turn's microtasks have run), not one syscall each.

export interface HeartbeatPolicy {
  intervalMs: number;
  timeoutMs: number;
}

/** Bounds on what one node may hold of the router's memory. */
export interface BackpressurePolicy {
  /** Requests of one user waiting on this node; past it, that user's new ones get QUEUE_FULL at once. */
  maxPending: number;
  /** Bytes queued in the socket that count as "not reading". */
  slowSocketBytes: number;
  /** How long a socket may stay over `slowSocketBytes` before it is cut off. */
  slowSocketMs: number;
}

export interface ForwardOptions {
  timeoutMs: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export class NodeConnection {
  readonly pending: PendingRequests<NodeAnswer>;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private slowTimer: NodeJS.Timeout | undefined;
  /**
   * Waiting requests per user: one user's flood must not lock the others out of a shared node.
   * Made at the first request (see PendingRequests.entries: an idle host needs none).
   */
  private pendingPerUser: Map<string, number> | undefined;
  private cancelTimedOut: ((id: string) => void) | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly nodeId: string,
    private readonly logger: Logger,
    private readonly backpressure: BackpressurePolicy,
    /** The TCP socket under `socket`, corked by `writes` for the rest of a turn at its first frame. */
    private readonly tcp: CorkableStream,
    private readonly writes: TurnWrites,
  ) {
    this.pending = new PendingRequests<NodeAnswer>(nodeId);
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(frame: RouterFrame): boolean {
    if (!this.isOpen) return false;
    this.writes.hold(this.tcp);
    this.socket.send(encodeFrame(frame));
    this.watchBuffer();
    return true;
  }

  /**
   * A node that stops reading (stuck process, dead Wi-Fi that TCP has not noticed) makes the
   * socket's send buffer grow. Over the watermark for too long, it is cut off; its pending
   * requests then fail with NODE_OFFLINE instead of the router's memory growing.
   */
  private watchBuffer(): void {
    if (this.slowTimer || this.socket.bufferedAmount <= this.backpressure.slowSocketBytes) return;
    this.slowTimer = setTimeout(() => {
      this.slowTimer = undefined;
      if (this.socket.bufferedAmount <= this.backpressure.slowSocketBytes) return;
      this.logger.warn(
        { nodeId: this.nodeId, bufferedBytes: this.socket.bufferedAmount },
        "node is not reading; cutting it off",
      );
      this.socket.terminate();
    }, this.backpressure.slowSocketMs);
  }

  /**
   * Sends `frame` and resolves with the node's answer (or the failure it answered with) and its
   * delivery id; rejects with a WireError when no answer came (timeout, offline, cancelled).
   */
  forward(frame: ForwardFrame, options: ForwardOptions): Promise<NodeAnswer> {
    const user = frame.user_id;
    this.pendingPerUser ??= new Map();
    const perUser = this.pendingPerUser;
    const waiting = perUser.get(user) ?? 0;
    if (waiting >= this.backpressure.maxPending)
      return Promise.reject(
        new WireError("QUEUE_FULL", `queue full (max ${this.backpressure.maxPending})`, this.nodeId),
      );
    perUser.set(user, waiting + 1);
    // One function per connection, made at its first request, tells the node a timed-out id (not a
    // named closure per forward: keepNames makes each one a defineProperty).
    this.cancelTimedOut ??= (id: string) => this.send({ type: "cancel", id, reason: "timed out" });
    const answer = this.pending.wait(frame.id, {
      timeoutMs: options.timeoutMs,
      onTimeout: this.cancelTimedOut,
      onProgress: options.onProgress,
      signal: options.signal,
    });
    if (!this.send(frame)) {
      this.pending.reject(
        frame.id,
        new WireError("NODE_OFFLINE", `node "${this.nodeId}" is not connected`, this.nodeId),
      );
    }
    // Settled either way in one handler pair (`finally` makes three promises more per message).
    return answer.then(
      (value) => {
        this.release(perUser, user);
        return value;
      },
      (error: unknown) => {
        this.release(perUser, user);
        throw error;
      },
    );
  }

  private release(perUser: Map<string, number>, user: string): void {
    const left = (perUser.get(user) ?? 1) - 1;
    if (left > 0) perUser.set(user, left);
    else perUser.delete(user);
  }

  /** Pings every interval; a node that does not pong within the timeout is cut off. */
  startHeartbeat(policy: HeartbeatPolicy, clock: Clock): void {
    this.heartbeatTimer = setInterval(() => {
      if (this.pongTimer) return; // still waiting for the previous pong
      this.send({ type: "ping", ts: clock.now() });
      this.pongTimer = setTimeout(() => {
        this.logger.warn(
          { nodeId: this.nodeId, timeoutMs: policy.timeoutMs },
          "heartbeat timed out; dropping node",
        );
        this.socket.terminate();
      }, policy.timeoutMs);
    }, policy.intervalMs);
  }

  pongReceived(): void {
    clearTimeout(this.pongTimer);
    this.pongTimer = undefined;
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  /** Called once the socket has closed: stop timers and fail everything still pending. */
  dispose(): void {
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.pongTimer);
    clearTimeout(this.slowTimer);
    this.pending.rejectAll(
      () => new WireError("NODE_OFFLINE", `node "${this.nodeId}" went offline before answering`, this.nodeId),
    );
  }
}
