import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { IdSource } from "./ids.ts";
import type { Envelope } from "./types.ts";

// Socket Mode, Slack's side: apps.connections.open hands out a one-use URL; the socket opens with
// `hello`; envelopes go to the newest open socket (queued while none is); the app acknowledges each
// with `{ envelope_id }`. One left unacknowledged for ackTimeoutMs is sent again — a new envelope
// id, retry_attempt + 1, retry_reason "timeout", the same event — up to maxRetries times.

export class SocketModeServer {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly sockets: WebSocket[] = [];
  private readonly queue: Envelope[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly envelopes: Envelope[] = [];
  connectionsOpened = 0;

  constructor(
    private readonly ids: IdSource,
    private readonly options: { ackTimeoutMs: number; maxRetries: number },
  ) {}

  /** A URL for one connection (what apps.connections.open answers). */
  ticket(baseUrl: string): string {
    const ticket = this.ids.next("ticket-");
    this.tickets.add(ticket);
    return `${baseUrl.replace(/^http/, "ws")}/link/?ticket=${ticket}`;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(req.url ?? "/", "http://x").searchParams.get("ticket") ?? "";
    if (!this.tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.opened(ws));
  }

  private opened(ws: WebSocket): void {
    this.connectionsOpened += 1;
    this.sockets.push(ws);
    // Slack pings; the SDK reconnects after 30 s without one.
    const ping = setInterval(() => ws.ping(), 5_000);
    ping.unref();
    ws.on("close", () => {
      clearInterval(ping);
      this.sockets.splice(this.sockets.indexOf(ws), 1);
    });
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.sockets.length,
        debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
        connection_info: { app_id: "AFAKEAPP" },
      }),
    );
    for (const envelope of this.queue.splice(0)) this.transmit(envelope);
  }

  private onMessage(text: string): void {
    let message: { envelope_id?: unknown };
    try {
      message = JSON.parse(text) as { envelope_id?: unknown };
    } catch {
      return;
    }
    const envelope = this.envelopes.find((e) => e.envelopeId === message.envelope_id);
    if (envelope && envelope.ackedAt === undefined) envelope.ackedAt = Date.now();
  }

  open(): number {
    return this.sockets.filter((ws) => ws.readyState === ws.OPEN).length;
  }

  /** Sends a new envelope (or queues it until a socket is open). */
  send(type: Envelope["type"], payload: Record<string, unknown>, eventId?: string): Envelope {
    return this.deliver({
      envelopeId: this.ids.next("env-"),
      type,
      retryAttempt: 0,
      payload,
      ...(eventId ? { eventId } : {}),
    });
  }

  /** Sends an event again as Slack does when an ack came too late or was lost (acked or not). */
  redeliver(envelopeId: string): Envelope {
    const earlier = this.envelopes.find((e) => e.envelopeId === envelopeId);
    if (!earlier) throw new Error(`no envelope ${envelopeId}`);
    const { sentAt: _sent, ackedAt: _acked, ...rest } = earlier;
    const retries = this.envelopes.filter((e) => e.eventId !== undefined && e.eventId === earlier.eventId);
    return this.deliver({ ...rest, envelopeId: this.ids.next("env-"), retryAttempt: retries.length });
  }

  private deliver(envelope: Envelope): Envelope {
    this.envelopes.push(envelope);
    const ws = this.sockets.at(-1);
    if (ws && ws.readyState === ws.OPEN) this.transmit(envelope);
    else this.queue.push(envelope);
    return envelope;
  }

  private transmit(envelope: Envelope): void {
    const ws = this.sockets.at(-1);
    if (!ws) {
      this.queue.push(envelope);
      return;
    }
    envelope.sentAt = Date.now();
    ws.send(
      JSON.stringify({
        envelope_id: envelope.envelopeId,
        type: envelope.type,
        payload: envelope.payload,
        accepts_response_payload: envelope.type !== "events_api",
        ...(envelope.type === "events_api"
          ? { retry_attempt: envelope.retryAttempt, retry_reason: envelope.retryAttempt > 0 ? "timeout" : "" }
          : {}),
      }),
    );
    // Only events are retried by Slack; interactions and commands just time out for the user.
    if (envelope.type !== "events_api") return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (envelope.ackedAt !== undefined || envelope.retryAttempt >= this.options.maxRetries) return;
      this.deliver({
        ...envelope,
        envelopeId: this.ids.next("env-"),
        retryAttempt: envelope.retryAttempt + 1,
      });
    }, this.options.ackTimeoutMs);
    this.timers.add(timer);
  }

  /** Closes every socket as Slack does when recycling a connection (the SDK reconnects). */
  disconnectAll(): void {
    for (const ws of this.sockets) ws.close(1001, "going away");
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }
}
