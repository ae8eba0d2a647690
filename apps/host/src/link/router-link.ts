import {
  decodeFrame,
  encodeFrame,
  type HostFrame,
  type RegisterFrame,
  type RegisterOkFrame,
  RouterFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { type RawData, WebSocket } from "ws";
import { type BackoffPolicy, reconnectDelay } from "./backoff.ts";

// The host's outbound connection to the router: connect, register, keep alive, and
// reconnect forever with backoff. NAT-transparent because the host always dials out.

export interface RouterLinkOptions {
  url: string;
  secret: string;
  /** Built fresh for each connection so the router always gets the current sessions. */
  registration: () => RegisterFrame;
  maxPayloadBytes: number;
  backoff: BackoffPolicy;
  logger: Logger;
  /** Frames for the host's own parts: work (forward, cancel) and outbox acknowledgements. */
  onWork: (frame: Extract<RouterFrame, { type: "forward" | "cancel" | "push_ack" }>) => void;
  random?: () => number;
}

export type LinkState = "idle" | "connecting" | "registered" | "waiting" | "stopped";

export class RouterLink {
  private socket: WebSocket | undefined;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private waiters: Array<(ok: RegisterOkFrame) => void> = [];
  private readonly listeners = new Set<(state: LinkState) => void>();
  state: LinkState = "idle";
  policy: RegisterOkFrame | undefined;

  constructor(private readonly options: RouterLinkOptions) {}

  start(): void {
    if (this.state !== "idle") return;
    this.connect();
  }

  /** Resolves at the next successful registration (immediately if registered now). */
  registered(): Promise<RegisterOkFrame> {
    if (this.state === "registered" && this.policy) return Promise.resolve(this.policy);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  onStateChange(listener: (state: LinkState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(frame: HostFrame): boolean {
    return this.sendEncoded(encodeFrame(frame));
  }

  /** A frame already encoded (the outbox stores frames as text). */
  sendEncoded(text: string): boolean {
    if (this.state !== "registered" || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(text);
    return true;
  }

  async stop(): Promise<void> {
    this.setState("stopped");
    clearTimeout(this.retryTimer);
    clearTimeout(this.watchdog);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.close(1000, "host stopping");
      setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  private connect(): void {
    const { logger } = this.options;
    this.setState("connecting");
    const socket = new WebSocket(this.options.url, {
      headers: { Authorization: `Bearer ${this.options.secret}` },
      maxPayload: this.options.maxPayloadBytes,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.socket = socket;
    socket.on("open", () => socket.send(encodeFrame(this.options.registration())));
    socket.on("message", (data, isBinary) => {
      if (!isBinary) this.handle(socket, rawText(data));
    });
    socket.on("error", (error) =>
      logger.warn({ err: error.message, url: this.options.url }, "router link error"),
    );
    socket.on("close", (code, reason) => {
      if (this.socket !== socket) return;
      clearTimeout(this.watchdog);
      this.socket = undefined;
      if (this.state === "stopped") return;
      const delay = reconnectDelay(this.attempt++, this.options.backoff, this.options.random);
      logger.info({ code, reason: reason.toString(), retryInMs: delay }, "router link closed; reconnecting");
      this.setState("waiting");
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private handle(socket: WebSocket, raw: string): void {
    this.resetWatchdog(socket);
    const decoded = decodeFrame(raw, RouterFrame);
    if (!decoded.ok) {
      this.options.logger.warn({ error: decoded.message }, "bad frame from router");
      socket.send(encodeFrame({ type: "error", code: decoded.code, message: decoded.message }));
      return;
    }
    const frame = decoded.frame;
    switch (frame.type) {
      case "register_ok":
        this.attempt = 0;
        this.policy = frame;
        this.setState("registered");
        this.resetWatchdog(socket);
        this.options.logger.info(
          { nodeId: frame.node_id, version: frame.protocol_version },
          "registered with router",
        );
        for (const resolve of this.waiters.splice(0)) resolve(frame);
        return;
      case "register_error":
        this.options.logger.error({ code: frame.code, reason: frame.reason }, "router refused registration");
        return;
      case "ping":
        socket.send(encodeFrame({ type: "pong", ts: frame.ts }));
        return;
      case "error":
        this.options.logger.warn(
          { code: frame.code, message: frame.message, id: frame.id },
          "router reported an error",
        );
        return;
      case "forward":
      case "cancel":
      case "push_ack":
        this.options.onWork(frame);
        return;
    }
  }

  /** A router that has gone silent (half-open TCP) is dropped, so the host reconnects. */
  private resetWatchdog(socket: WebSocket): void {
    if (!this.policy) return;
    // Capped: a timer past 2^31-1 ms fires at once (Node clamps it to 1 ms), which would drop a
    // healthy link in a loop if a router ever announced an absurd heartbeat.
    const silenceMs = Math.min(
      (this.policy.heartbeat_interval_s * 2 + this.policy.heartbeat_timeout_s) * 1000,
      MAX_TIMER_MS,
    );
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      this.options.logger.warn({ silenceMs }, "router silent too long; reconnecting");
      socket.terminate();
    }, silenceMs);
  }

  private setState(state: LinkState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}
