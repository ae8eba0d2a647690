import type { Server, Socket } from "node:net";
import { addressKey } from "./address-key.ts";

// How fast new connections are read. After a router restart thousands of hosts connect at once, and
// each writes its upgrade request as soon as it is connected: read as they land, thousands of
// request heads were parsed in one turn of the event loop (libuv reads every ready socket in one
// poll phase), and that turn froze chat for most of a second. So the server accepts connections
// paused (pauseOnConnect) and gives them to the HTTP server — which only then reads them — at most
// PER_TURN per turn and while fewer than MAX_READING handed connections are still short of their
// first request head: however many land together, a turn parses at most that many heads. The rest
// wait, paused and unread; past MAX_QUEUED, or once they have waited MAX_WAIT_MS (their client would
// soon give up, and handing them on would spend the router on the dead), they are answered 503 +
// Retry-After from a static buffer, without a parser or a timer of the HTTP server's spent on them. A connection that says nothing
// once handed (a stranger's, or slowloris) holds its place until the HTTP server's header timeout,
// or STALE_MS when others are waiting: the oldest such gives way to the next in line. One address
// holds at most MAX_READING_PER_ADDRESS places (trusted proxies excepted): its other connections
// wait while everyone else's are read, so one script's silent connections cannot fill them.

export interface PacerLimits {
  /** Handed connections whose first request head has not arrived yet. */
  maxReading: number;
  /** Of those, at most this many from one address (an IPv6 /64 counts as one). */
  maxReadingPerAddress: number;
  /** Connections handed to the HTTP server in one turn of the event loop. */
  perTurn: number;
  /** Connections waiting to be handed; past this, new ones are refused. */
  maxQueued: number;
  /** A connection that has waited this long is refused rather than handed. */
  maxWaitMs: number;
  /** A handed connection silent this long gives its place to one that is waiting. */
  staleMs: number;
}

export const PACER_DEFAULTS: PacerLimits = {
  maxReading: 16,
  maxReadingPerAddress: 4,
  perTurn: 16,
  maxQueued: 1_024,
  maxWaitMs: 3_000,
  staleMs: 1_000,
};

/** Refusals of connections that waited too long, per turn: each is a write and a close. */
const EXPIRED_PER_TURN = 128;

export interface PacerDeps {
  now: () => number;
  /** Peers the per-address share does not apply to: trusted proxies, which carry everybody's connections. */
  exempt?: (address: string) => boolean;
  /** The Retry-After (seconds) of a refusal. */
  retryAfter: () => string;
  /** Told each connection refused because the queue is full, and each stale one dropped. */
  onRefused?: (address: string | undefined, why: "queue full" | "waited too long" | "stale") => void;
}

export class ConnectionPacer {
  /** Waiting connections, oldest first, with when they arrived. */
  private readonly queued = new Map<Socket, number>();
  /** Handed connections short of their first request head, oldest first, with when they were handed. */
  private readonly reading = new Map<Socket, number>();
  /** Places taken per address key (exempt peers are not counted). */
  private readonly readingPer = new Map<string, number>();
  private handedThisTurn = 0;
  private turnScheduled = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = 0;
  /**
   * The 'close' listeners of waiting and of handed connections: one function each for every
   * socket, taken off again once the pacer is done with it. A closure per socket would stay on a
   * host's socket for as long as the host is connected, long after it was read.
   */
  private readonly queuedClosed: (this: Socket) => void;
  private readonly readingClosed: (this: Socket) => void;

  constructor(
    private readonly limits: PacerLimits,
    private readonly deps: PacerDeps,
  ) {
    const pacer = this;
    this.queuedClosed = function (this: Socket) {
      pacer.queued.delete(this);
    };
    this.readingClosed = function (this: Socket) {
      pacer.doneReading(this);
    };
  }

  /** Connections waiting to be read. */
  get waiting(): number {
    return this.queued.size;
  }

  /**
   * Puts the pacer between `server`'s accept and its HTTP handling: the listeners already on
   * 'connection' (the HTTP server's own) run when the connection's turn comes, those added later
   * (before them, with prependListener: the per-address cap) at once.
   */
  attach(server: Server): void {
    // net.Server's own option, read at each accept; http.Server has no way to pass it in.
    (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
    const handOn = server.listeners("connection") as Array<(socket: Socket) => void>;
    for (const listener of handOn) server.removeListener("connection", listener);
    this.handOn = (socket) => {
      for (const listener of handOn) listener.call(server, socket);
    };
    server.on("connection", (socket: Socket) => this.arrive(socket));
    // The first request head has arrived: this connection's reading is no longer paced.
    const headArrived = (request: { socket: unknown }) => this.doneReading(request.socket);
    server.prependListener("request", headArrived);
    server.prependListener("upgrade", headArrived);
  }

  private handOn: (socket: Socket) => void = () => {};

  private arrive(socket: Socket): void {
    if (socket.destroyed) return; // dropped by a listener before this one (the per-address cap)
    if (this.queued.size === 0 && this.underShare(socket) && this.canHand()) {
      this.hand(socket);
      return;
    }
    if (this.queued.size >= this.limits.maxQueued) {
      this.refuse(socket, "queue full");
      return;
    }
    this.queued.set(socket, this.deps.now());
    socket.on("close", this.queuedClosed);
    this.scheduleTurn();
  }

  private canHand(): boolean {
    if (this.handedThisTurn >= this.limits.perTurn) return false;
    return this.reading.size < this.limits.maxReading || this.dropStale();
  }

  private hand(socket: Socket): void {
    this.handedThisTurn++;
    this.scheduleTurn(); // so the per-turn count starts again next turn
    this.reading.set(socket, this.deps.now());
    const key = this.shareKey(socket);
    if (key !== undefined) this.readingPer.set(key, (this.readingPer.get(key) ?? 0) + 1);
    socket.on("close", this.readingClosed);
    this.handOn(socket);
    // The HTTP server may have taken the socket's stream for its parser; resuming reads into it.
    if (!socket.destroyed) socket.resume();
  }

  private doneReading(socket: unknown): void {
    // A TLS connection's request names the TLS socket; its TCP socket is what was handed.
    const handed = this.reading.has(socket as Socket) ? socket : (socket as { _parent?: unknown })._parent;
    if (!this.reading.delete(handed as Socket)) return;
    (handed as Socket).removeListener("close", this.readingClosed);
    this.releaseShare(handed as Socket);
    if (this.queued.size > 0) this.scheduleTurn();
  }

  /** The address key whose share `socket` counts against; undefined for an exempt peer. */
  private shareKey(socket: Socket): string | undefined {
    const address = socket.remoteAddress;
    if (address === undefined || this.deps.exempt?.(address)) return undefined;
    return addressKey(address);
  }

  private underShare(socket: Socket): boolean {
    const key = this.shareKey(socket);
    return key === undefined || (this.readingPer.get(key) ?? 0) < this.limits.maxReadingPerAddress;
  }

  private releaseShare(socket: Socket): void {
    const key = this.shareKey(socket);
    if (key === undefined) return;
    const left = (this.readingPer.get(key) ?? 1) - 1;
    if (left > 0) this.readingPer.set(key, left);
    else this.readingPer.delete(key);
  }

  private unqueue(socket: Socket): void {
    this.queued.delete(socket);
    socket.removeListener("close", this.queuedClosed);
  }

  /** When every place is taken: the oldest, if silent for staleMs, is dropped for one waiting. */
  private dropStale(): boolean {
    const oldest = this.reading.entries().next();
    if (oldest.done) return true;
    const [socket, since] = oldest.value;
    const left = since + this.limits.staleMs - this.deps.now();
    if (left > 0) {
      this.wakeAfter(left);
      return false;
    }
    this.reading.delete(socket);
    socket.removeListener("close", this.readingClosed);
    this.releaseShare(socket);
    this.deps.onRefused?.(socket.remoteAddress, "stale");
    socket.destroy();
    return true;
  }

  /** Another turn in `ms` at the latest (one timer, kept for the earliest wake asked for). */
  private wakeAfter(ms: number): void {
    const at = this.deps.now() + ms;
    if (this.wakeTimer && this.wakeAt <= at) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.scheduleTurn();
    }, ms);
    this.wakeTimer.unref();
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => this.nextTurn());
  }

  private nextTurn(): void {
    this.turnScheduled = false;
    this.handedThisTurn = 0;
    const expiredBefore = this.deps.now() - this.limits.maxWaitMs;
    let expired = 0;
    for (const [socket, arrived] of this.queued) {
      if (arrived > expiredBefore || expired >= EXPIRED_PER_TURN) break;
      this.unqueue(socket);
      this.refuse(socket, "waited too long");
      expired++;
    }
    if (expired === EXPIRED_PER_TURN) this.scheduleTurn();
    for (const socket of this.queued.keys()) {
      if (!this.underShare(socket)) continue; // its address has its share: the next one's turn
      if (!this.canHand()) break;
      this.unqueue(socket);
      this.hand(socket);
    }
    // Blocked with some still waiting: look again when the oldest would expire.
    const oldest = this.queued.values().next();
    if (!oldest.done) this.wakeAfter(Math.max(1, oldest.value + this.limits.maxWaitMs - this.deps.now()));
  }

  /** 503 without reading the request; what the client sent is read and dropped so the close is clean. */
  private refuse(socket: Socket, why: "queue full" | "waited too long"): void {
    this.deps.onRefused?.(socket.remoteAddress, why);
    socket.on("error", () => socket.destroy());
    socket.resume();
    socket.end(busyResponse(this.deps.retryAfter()));
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  }
}

/** How long a refused connection may stay open for its client to read the answer and close. */
const REFUSED_LINGER_MS = 2_000;

const BODY = JSON.stringify({ error: "BUSY", message: "too many connections at once; retry" });
const busyResponses = new Map<string, Buffer>();

/** The static 503 for one Retry-After value (few distinct values: each is built once). */
function busyResponse(retryAfter: string): Buffer {
  let response = busyResponses.get(retryAfter);
  if (!response) {
    response = Buffer.from(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(BODY)}\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\n\r\n${BODY}`,
    );
    if (busyResponses.size < 64) busyResponses.set(retryAfter, response);
  }
  return response;
}
