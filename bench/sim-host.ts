import { readFileSync } from "node:fs";
import { reconnectDelay, retryAfterDelay } from "../apps/host/src/link/backoff.ts";
import { encodeFrame, NODE_ID_HEADER, RegisterFrame } from "../packages/protocol/src/index.ts";
import { type SimKey, signedAuth, simKey } from "./sim-keys.ts";
import { WebSocket } from "./ws.ts";

// A simulated host: a bare `ws` client that registers, answers pings and otherwise idles.
// It reconnects exactly like apps/host/src/link/router-link.ts: after any close, wait
// reconnectDelay(attempt++) with create-host.ts's policy (full jitter, the first retry too),
// and start again from attempt 0 once registered. Each dials from an address of its own in 127/8
// (see simAddress), as real hosts come from their own: the router caps per address the
// connections that have not registered yet, and 10,000 hosts from one address would be one flood.
// Without a secret a simulated host is a paired one: it names its node id before the upgrade,
// signs the router's challenge with its own key (sim-keys.ts) and, refused with 503, waits what
// Retry-After says (retryAfterDelay, as the host does). A paired host echoes what it is forwarded.

const BACKOFF = { baseMs: 500, maxMs: 30_000 };
const fixture = JSON.parse(
  readFileSync(new URL("../packages/protocol/fixtures/v3/register.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

/**
 * The protocol's sample registration, as node `nodeId` serving one user of its own: with `auth`
 * (a paired host's key proof), or without (admitted by the bench router's shared secret).
 */
export function registrationFor(nodeId: string, auth?: ReturnType<typeof signedAuth>): string {
  const { auth: _sampleProof, ...shape } = fixture;
  return encodeFrame(
    RegisterFrame.parse({
      ...shape,
      node_id: nodeId,
      display_name: nodeId,
      serves_users: [`user-${nodeId}`],
      ...(auth ? { auth } : {}),
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
  /** Connections refused by the machine (ECONNREFUSED: no router listening yet). */
  noListener: number;
  /** Failed attempts by how: an error code, or "closed <code>" after the upgrade. */
  failures: Record<string, number>;
  registrations: number;
}

export function emptyCounters(): SimCounters {
  return { attempts: 0, failedAttempts: 0, http503: 0, noListener: 0, failures: {}, registrations: 0 };
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
  private readonly key: SimKey | undefined;
  registered = false;

  constructor(
    readonly nodeId: string,
    private readonly url: string,
    /** The shared secret; undefined for a paired host (its key). */
    private readonly secret: string | undefined,
    private readonly localAddress: string,
    private readonly counters: SimCounters,
    private readonly events: SimHostEvents,
  ) {
    this.key = secret === undefined ? simKey(nodeId) : undefined;
  }

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
      headers: this.secret ? { Authorization: `Bearer ${this.secret}` } : { [NODE_ID_HEADER]: this.nodeId },
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      localAddress: this.localAddress,
    });
    this.socket = socket;
    if (!this.key) socket.on("open", () => socket.send(registrationFor(this.nodeId)));
    socket.on("message", (data) => this.handle(socket, String(data)));
    let retryAfterMs: number | undefined;
    socket.on("unexpected-response", (_request, response) => {
      if (response.statusCode === 503) {
        this.counters.http503++;
        failure = "HTTP 503";
        retryAfterMs = retryAfterDelay(response.headers["retry-after"], BACKOFF);
      }
      socket.terminate();
    });
    let failure: string | undefined;
    socket.on("error", (error: NodeJS.ErrnoException) => {
      failure ??= error.code ?? error.message.slice(0, 40);
      if (error.code === "ECONNREFUSED") this.counters.noListener++;
    }); // a close follows
    socket.on("close", (code) => {
      if (this.registered) {
        this.registered = false;
        this.events.lost(this);
      } else {
        this.counters.failedAttempts++;
        const how = failure ?? `closed ${code}`;
        this.counters.failures[how] = (this.counters.failures[how] ?? 0) + 1;
      }
      if (this.stopped) return;
      const delay = Math.max(reconnectDelay(this.attempt++, BACKOFF), retryAfterMs ?? 0);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private handle(socket: WebSocket, raw: string): void {
    const frame = JSON.parse(raw) as {
      type?: string;
      ts?: number;
      nonce?: string;
      id?: string;
      text?: string;
    };
    if (frame.type === "challenge" && this.key) {
      socket.send(registrationFor(this.nodeId, signedAuth(this.key, frame.nonce ?? "", this.nodeId)));
    } else if (frame.type === "forward") {
      const id = frame.id ?? "";
      const text = `${this.nodeId}: ${frame.text}`;
      socket.send(JSON.stringify({ type: "forward_response", id, delivery_id: `reply-${id}`, text }));
    } else if (frame.type === "ping") {
      socket.send(encodeFrame({ type: "pong", ts: frame.ts ?? 0 }));
    } else if (frame.type === "register_ok") {
      this.attempt = 0;
      this.registered = true;
      this.counters.registrations++;
      this.events.registered(this);
    }
  }
}
