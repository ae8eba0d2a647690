import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { DiscordState } from "./state.ts";

// The gateway over WebSocket, as the real one speaks it (v10, JSON, no compression): HELLO (op 10),
// IDENTIFY (op 2) → READY, heartbeats (op 1 → op 11), RESUME (op 6) → the dispatches the session
// missed, then RESUMED; RECONNECT (op 7) and INVALID_SESSION (op 9) on request. A session keeps
// every dispatch with its sequence number, so a RESUME replays what the dropped connection missed
// (and, when a test asks, some it had already sent: the gateway delivers at least once).

export interface GatewayFrame {
  op: number;
  d?: unknown;
  s?: number | null;
  t?: string | null;
}

interface Session {
  id: string;
  log: Array<{ s: number; t: string; d: unknown }>;
  socket?: WebSocket;
  /** How many already-sent dispatches the next RESUME replays again. */
  redeliver: number;
}

export interface GatewayOptions {
  token: string;
  state: DiscordState;
  heartbeatIntervalMs: number;
  /** The address clients are told to resume at. */
  url: () => string;
  /** Intents the application may use (MESSAGE_CONTENT is privileged: off, IDENTIFY is closed with 4014). */
  messageContentIntent: boolean;
}

const MESSAGE_CONTENT = 1 << 15;

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private session: Session | undefined;
  /** Dispatches made while no session was ready: sent after the next READY. */
  private waiting: Array<{ t: string; d: unknown }> = [];
  readonly received: GatewayFrame[] = [];
  identifies = 0;
  resumes = 0;
  heartbeats = 0;

  constructor(private readonly options: GatewayOptions) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private send(ws: WebSocket, frame: GatewayFrame): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  }

  private accept(ws: WebSocket): void {
    this.send(ws, { op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs }, s: null, t: null });
    ws.on("message", (raw) => {
      let frame: GatewayFrame;
      try {
        frame = JSON.parse(String(raw)) as GatewayFrame;
      } catch {
        ws.close(4002, "Error while decoding payload.");
        return;
      }
      this.received.push(frame);
      this.onFrame(ws, frame);
    });
    ws.on("close", () => {
      if (this.session?.socket === ws) this.session.socket = undefined;
    });
  }

  private onFrame(ws: WebSocket, frame: GatewayFrame): void {
    const d = (frame.d ?? {}) as Record<string, unknown>;
    if (frame.op === 1) {
      this.heartbeats += 1;
      this.send(ws, { op: 11 });
    } else if (frame.op === 2) this.identify(ws, d);
    else if (frame.op === 6) this.resume(ws, d);
  }

  private identify(ws: WebSocket, d: Record<string, unknown>): void {
    if (d.token !== this.options.token) {
      ws.close(4004, "Authentication failed.");
      return;
    }
    if (!this.options.messageContentIntent && (Number(d.intents) & MESSAGE_CONTENT) !== 0) {
      ws.close(4014, "Disallowed intent(s).");
      return;
    }
    this.identifies += 1;
    this.session?.socket?.terminate();
    const { state } = this.options;
    this.session = { id: randomBytes(16).toString("hex"), log: [], socket: ws, redeliver: 0 };
    this.dispatchTo(this.session, "READY", {
      v: 10,
      user: state.bot,
      guilds: [],
      session_id: this.session.id,
      resume_gateway_url: this.options.url(),
      application: { id: state.applicationId, flags: 0 },
    });
    const waiting = this.waiting;
    this.waiting = [];
    for (const { t, d: data } of waiting) this.dispatchTo(this.session, t, data);
  }

  private resume(ws: WebSocket, d: Record<string, unknown>): void {
    const session = this.session;
    if (d.token !== this.options.token) {
      ws.close(4004, "Authentication failed.");
      return;
    }
    if (!session || d.session_id !== session.id) {
      this.send(ws, { op: 9, d: false });
      return;
    }
    this.resumes += 1;
    session.socket?.terminate();
    session.socket = ws;
    const after = Number(d.seq ?? 0) - session.redeliver;
    session.redeliver = 0;
    for (const entry of session.log.filter((e) => e.s > after)) this.send(ws, { op: 0, ...entry });
    this.dispatchTo(session, "RESUMED", {});
  }

  private dispatchTo(session: Session, t: string, d: unknown): void {
    const entry = { s: session.log.length + 1, t, d };
    session.log.push(entry);
    if (session.socket) this.send(session.socket, { op: 0, ...entry });
  }

  /** A dispatch for the bot: sent now on a live session, else replayed at its RESUME (or after READY). */
  dispatch(t: string, d: unknown): void {
    if (this.session) this.dispatchTo(this.session, t, d);
    else this.waiting.push({ t, d });
  }

  /** Drops the connection without a close frame; the next RESUME also replays `redeliver` sent ones. */
  drop(redeliver = 0): void {
    if (!this.session) return;
    this.session.redeliver = redeliver;
    this.session.socket?.terminate();
    this.session.socket = undefined;
  }

  /** Asks the client to reconnect and resume (op 7). */
  reconnect(): void {
    const socket = this.session?.socket;
    if (socket) this.send(socket, { op: 7, d: null });
  }

  /** Ends the session (op 9, not resumable): the client identifies anew; missed dispatches are lost. */
  invalidate(): void {
    const socket = this.session?.socket;
    this.session = undefined;
    if (socket) this.send(socket, { op: 9, d: false });
  }

  get connected(): boolean {
    return this.session?.socket !== undefined;
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
