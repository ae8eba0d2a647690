import { readFileSync } from "node:fs";
import { reconnectDelay } from "../apps/host/src/link/backoff.ts";
import { encodeFrame, RegisterFrame } from "../packages/protocol/src/index.ts";
import { WebSocket } from "./ws.ts";

// A simulated host: a bare `ws` client that registers, answers pings and otherwise idles.
// It reconnects exactly like apps/host/src/link/router-link.ts: after any close, wait
// reconnectDelay(attempt++) with create-host.ts's policy (full jitter, the first retry too),
// and start again from attempt 0 once registered. Each dials from an address of its own in 127/8
// (see simAddress), as real hosts come from their own: the router caps per address the
// connections that have not registered yet, and 10,000 hosts from one address would be one flood.

const BACKOFF = { baseMs: 500, maxMs: 30_000 };
const fixture = JSON.parse(
  readFileSync(new URL("../packages/protocol/fixtures/v3/register.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

/**
 * The protocol's sample registration, as node `nodeId` serving one user of its own. Simulated
 * hosts are admitted by the bench router's shared secret (it listens on loopback), so the sample's
 * key proof is left out.
 */
export function registrationFor(nodeId: string): string {
  const { auth: _keyProof, ...shape } = fixture;
  return encodeFrame(
    RegisterFrame.parse({
      ...shape,
      node_id: nodeId,
      display_name: nodeId,
      serves_users: [`user-${nodeId}`],
    }),
  );
}

/** The source address of the `index`th simulated host: 127.10.0.0, 127.10.0.1, … (Linux routes 127/8 to loopback). */
export function simAddress(index: number): string {
  return `127.${10 + (index >> 16)}.${(index >> 8) & 255}.${index & 255}`;
}

export interface SimCounters {
  /** Connection attempts, including the first. */
  attempts: number;
  /** Attempts that closed before `register_ok` (refused, reset, throttled…). */
  failedAttempts: number;
  /** Upgrades answered with HTTP 503 (the router throttling handshakes). */
  http503: number;
  registrations: number;
}

export function emptyCounters(): SimCounters {
  return { attempts: 0, failedAttempts: 0, http503: 0, registrations: 0 };
}

export interface SimHostEvents {
  registered(host: SimHost): void;
  lost(host: SimHost): void;
}

export class SimHost {
  private attempt = 0;
  private socket: WebSocket | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  registered = false;

  constructor(
    readonly nodeId: string,
    private readonly url: string,
    private readonly secret: string,
    private readonly localAddress: string,
    private readonly counters: SimCounters,
    private readonly events: SimHostEvents,
  ) {}

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.socket?.terminate();
  }

  private connect(): void {
    this.counters.attempts++;
    const socket = new WebSocket(this.url, {
      headers: { Authorization: `Bearer ${this.secret}` },
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      localAddress: this.localAddress,
    });
    this.socket = socket;
    socket.on("open", () => socket.send(registrationFor(this.nodeId)));
    socket.on("message", (data) => this.handle(socket, String(data)));
    // ws reports a refused upgrade as "Unexpected server response: <status>"; a close follows.
    socket.on("error", (error) => {
      if (error.message.endsWith(": 503")) this.counters.http503++;
    });
    socket.on("close", () => {
      if (this.registered) {
        this.registered = false;
        this.events.lost(this);
      } else {
        this.counters.failedAttempts++;
      }
      if (this.stopped) return;
      this.retryTimer = setTimeout(() => this.connect(), reconnectDelay(this.attempt++, BACKOFF));
    });
  }

  private handle(socket: WebSocket, raw: string): void {
    const frame = JSON.parse(raw) as { type?: string; ts?: number };
    if (frame.type === "ping") {
      socket.send(encodeFrame({ type: "pong", ts: frame.ts ?? 0 }));
    } else if (frame.type === "register_ok") {
      this.attempt = 0;
      this.registered = true;
      this.counters.registrations++;
      this.events.registered(this);
    }
  }
}
