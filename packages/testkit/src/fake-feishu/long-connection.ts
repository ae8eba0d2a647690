import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { waitFor } from "../shared/wait-for.ts";
import { FeishuCode } from "./errors.ts";
import {
  decodeFrame,
  encodeFrame,
  type Frame,
  FrameMethod,
  frameHeader,
  jsonPayload,
  parsePayload,
} from "./frame-codec.ts";
import { hex } from "./ids.ts";

// The long connection ("长连接") as the SDK's WSClient expects it: POST /callback/ws/endpoint hands
// out a one-off ws URL plus ClientConfig; the client pings over control frames and the server pongs
// with ClientConfig (which the SDK adopts); events go out as data frames (split by sum/seq when
// large) and the client acks each by echoing the frame with a biz_rt header and {"code":200}.

/** Seconds, as Feishu sends them. The fake reconnects fast by default (real: 120 / 30). */
export interface WsClientConfig {
  PingInterval: number;
  ReconnectCount: number;
  ReconnectInterval: number;
  ReconnectNonce: number;
}

export const FAST_RECONNECT: WsClientConfig = {
  PingInterval: 120,
  ReconnectCount: -1,
  ReconnectInterval: 1,
  ReconnectNonce: 0,
};

export interface WsAck {
  message_id: string;
  headers: Record<string, string>;
  /** The client's payload: `{ code: 200 }`, plus `data` (base64 JSON) when the handler returned something. */
  payload: { code: number; data?: string };
}

export interface PushOptions {
  /** Split the event into frames of at most this many bytes (exercises the sum/seq reassembly). */
  fragmentBytes?: number;
  ackTimeoutMs?: number;
}

interface Connection {
  ws: WebSocket;
  /** Set once the client's first ping arrives: its message handler is attached by then. */
  ready: boolean;
}

interface PendingAck {
  resolve: (payload: WsAck["payload"]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class LongConnection {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly connections: Connection[] = [];
  private readonly pending = new Map<string, PendingAck>();
  readonly acks: WsAck[] = [];
  readonly serviceId = 100_000 + Math.floor(Math.random() * 900_000);
  private counter = 0;
  pings = 0;

  constructor(
    private readonly credentials: { appId: string; appSecret: string },
    readonly clientConfig: WsClientConfig,
  ) {}

  get accepted(): number {
    return this.connections.length;
  }

  /** The JSON answer of POST /callback/ws/endpoint (always HTTP 200, errors in `code`). */
  endpoint(body: unknown, baseUrl: string): object {
    const { AppID, AppSecret } = (body ?? {}) as { AppID?: unknown; AppSecret?: unknown };
    if (AppID !== this.credentials.appId || AppSecret !== this.credentials.appSecret) {
      return { code: FeishuCode.wsAuthFailed, msg: "auth failed: invalid app id or secret", data: {} };
    }
    const ticket = hex(16);
    this.tickets.add(ticket);
    const url = new URL("/ws/v2", baseUrl.replace(/^http/, "ws"));
    // device_id and service_id must not come first: the SDK runs qs.parse over the whole URL.
    url.search = new URLSearchParams({
      fpid: "493",
      aid: "552564",
      device_id: hex(8),
      access_key: hex(16),
      service_id: String(this.serviceId),
      ticket,
    }).toString();
    return { code: 0, msg: "ok", data: { URL: url.toString(), ClientConfig: this.clientConfig } };
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://fake");
    const ticket = url.searchParams.get("ticket") ?? "";
    if (url.pathname !== "/ws/v2" || !this.tickets.has(ticket)) {
      socket.end(
        "HTTP/1.1 403 Forbidden\r\nhandshake-status: 403\r\nhandshake-msg: invalid ticket\r\nconnection: close\r\n\r\n",
      );
      return;
    }
    this.tickets.delete(ticket);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    const connection: Connection = { ws, ready: false };
    this.connections.push(connection);
    ws.on("error", () => {}); // an abruptly dropped peer must not crash the fake
    ws.on("message", (data: Buffer) => {
      let frame: Frame;
      try {
        frame = decodeFrame(data);
      } catch {
        return; // not a pbbp2 frame: the real server ignores garbage too
      }
      if (frame.method === FrameMethod.control) this.onControl(connection, frame);
      else if (frame.method === FrameMethod.data) this.onAck(frame);
    });
  }

  private onControl(connection: Connection, frame: Frame): void {
    if (frameHeader(frame, "type") !== "ping") return;
    this.pings += 1;
    connection.ready = true;
    this.send(connection.ws, {
      ...frame,
      headers: [{ key: "type", value: "pong" }],
      payload: jsonPayload(this.clientConfig),
    });
  }

  private onAck(frame: Frame): void {
    const messageId = frameHeader(frame, "message_id") ?? "";
    const payload = (parsePayload(frame.payload) ?? { code: 0 }) as WsAck["payload"];
    this.acks.push({
      message_id: messageId,
      headers: Object.fromEntries(frame.headers.map((h) => [h.key, h.value])),
      payload,
    });
    const waiter = this.pending.get(messageId);
    if (!waiter) return;
    this.pending.delete(messageId);
    clearTimeout(waiter.timer);
    waiter.resolve(payload);
  }

  private latest(): Connection | undefined {
    const last = this.connections.at(-1);
    return last?.ready && last.ws.readyState === last.ws.OPEN ? last : undefined;
  }

  /** A process starting up dials in: on a busy machine that takes well over ten seconds. */
  async waitForConnection(count = 1, timeoutMs = 20_000): Promise<void> {
    await waitFor(() => this.accepted >= count && this.latest() !== undefined, {
      timeoutMs,
      message: `long connection #${count} to be open (accepted so far: ${this.accepted})`,
    });
  }

  async push(event: object, options: PushOptions = {}): Promise<WsAck["payload"]> {
    const connection = await waitFor(() => this.latest(), {
      timeoutMs: 5_000,
      message: "an open long connection to push the event on",
    });
    const messageId = hex(16);
    const traceId = hex(16);
    const bytes = jsonPayload(event);
    const size = Math.max(1, options.fragmentBytes ?? bytes.length);
    const parts: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; offset += size)
      parts.push(bytes.subarray(offset, offset + size));
    const ack = new Promise<WsAck["payload"]>((resolve, reject) => {
      const timeoutMs = options.ackTimeoutMs ?? 10_000;
      const timer = setTimeout(() => {
        this.pending.delete(messageId);
        reject(new Error(`fake-feishu: no ack for event ${messageId} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.pending.set(messageId, { resolve, reject, timer });
    });
    for (const [seq, part] of parts.entries()) {
      this.send(connection.ws, {
        SeqID: ++this.counter,
        LogID: this.counter,
        service: this.serviceId,
        method: FrameMethod.data,
        headers: [
          { key: "type", value: "event" },
          { key: "message_id", value: messageId },
          { key: "sum", value: String(parts.length) },
          { key: "seq", value: String(seq) },
          { key: "trace_id", value: traceId },
        ],
        payload: part,
      });
    }
    return ack;
  }

  /** Abrupt loss of the connection (no close frame), like a network cut. */
  drop(): void {
    for (const { ws } of this.connections) if (ws.readyState !== ws.CLOSED) ws.terminate();
  }

  close(): void {
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(`fake-feishu closed before event ${id} was acked`));
    }
    this.pending.clear();
    this.drop();
    this.wss.close();
  }

  private send(ws: WebSocket, frame: Frame): void {
    if (ws.readyState === ws.OPEN) ws.send(encodeFrame(frame));
  }
}
