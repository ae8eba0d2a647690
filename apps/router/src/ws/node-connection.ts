import { type CancelFrame, encodeFrame, type ForwardFrame, type RouterFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { WebSocket } from "ws";
import { PendingRequests } from "../rpc/pending-requests.ts";
import { RpcError } from "../rpc/rpc-error.ts";

// A registered node's socket: sending frames, its table of pending requests, and its heartbeat.

export interface HeartbeatPolicy {
  intervalMs: number;
  timeoutMs: number;
}

export interface ForwardOptions {
  timeoutMs: number;
  onProgress?: (text: string) => void;
  signal?: AbortSignal;
}

export class NodeConnection {
  readonly pending: PendingRequests;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly nodeId: string,
    private readonly logger: Logger,
  ) {
    this.pending = new PendingRequests(nodeId);
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(frame: RouterFrame): boolean {
    if (!this.isOpen) return false;
    this.socket.send(encodeFrame(frame));
    return true;
  }

  /** Sends `frame` and resolves with the node's answer text; rejects with an RpcError. */
  forward(frame: ForwardFrame, options: ForwardOptions): Promise<string> {
    const cancel: CancelFrame = { type: "cancel", id: frame.id, reason: "timed out" };
    const answer = this.pending.wait(frame.id, {
      timeoutMs: options.timeoutMs,
      onTimeout: () => this.send(cancel),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!this.send(frame)) {
      this.pending.reject(
        frame.id,
        new RpcError("NODE_OFFLINE", `node "${this.nodeId}" is not connected`, this.nodeId),
      );
    }
    return answer;
  }

  /** Pings every interval; a node that does not pong within the timeout is cut off. */
  startHeartbeat(policy: HeartbeatPolicy, now: () => number): void {
    this.heartbeatTimer = setInterval(() => {
      if (this.pongTimer) return; // still waiting for the previous pong
      this.send({ type: "ping", ts: now() });
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
    this.pending.rejectAll(
      () => new RpcError("NODE_OFFLINE", `node "${this.nodeId}" went offline before answering`, this.nodeId),
    );
  }
}
