import type { Duplex } from "node:stream";

// How many node handshakes the router runs at once, and how many it starts in one turn of the
// event loop. The token bucket (handshake-throttle.ts) bounds the rate; this bounds the work that
// can pile up inside one turn and stay in flight: after a router restart thousands of upgrades can
// land in the same turn, and each one started is a challenge, a key check and a registration the
// loop owes before it answers chat again. Upgrades past the per-turn share wait for the next turn
// (setImmediate, so timers and chat I/O run between batches); past the in-flight bound they are
// refused (503 + Retry-After, spread so the refused do not all come back in the same second).
// A stranger who names a paired node's id (ids are no secret) and then says nothing would hold a
// place until the handshake timeout; when all places are taken, the oldest handshake that has had
// STALE_HANDSHAKE_MS since its upgrade started is dropped for the newcomer — a host answers the
// challenge in milliseconds.

/** Handshakes between an admitted upgrade and the node's registration (or the socket's close). */
export const MAX_HANDSHAKES_IN_FLIGHT = 64;
/** Upgrades handed to the WebSocket server in one turn of the event loop. */
export const HANDSHAKES_PER_TURN = 16;
/** When every place is taken, a handshake this old gives its place to a new one. */
export const STALE_HANDSHAKE_MS = 1_000;
/** Retry-After for a refused upgrade is drawn from 1..this many seconds. */
export const RETRY_AFTER_SPREAD_S = 5;

export class HandshakeAdmission {
  private startedThisTurn = 0;
  private turnReset = false;
  private readonly waiting: Array<() => void> = [];
  /** The sockets holding a place, oldest first, with when they took it. */
  private readonly holders = new Map<Duplex, number>();

  constructor(
    private readonly maxInFlight = MAX_HANDSHAKES_IN_FLIGHT,
    private readonly perTurn = HANDSHAKES_PER_TURN,
    private readonly now: () => number = Date.now,
  ) {}

  /** Handshakes admitted and not yet registered or closed. */
  get active(): number {
    return this.holders.size;
  }

  /**
   * Takes a place for `socket`'s handshake, given back when it registers or closes. When every
   * place is taken, the oldest is dropped if it is stale; else false.
   */
  tryAdmit(socket: Duplex): boolean {
    const now = this.now();
    if (this.holders.size >= this.maxInFlight && !this.dropStale(now)) return false;
    this.holders.set(socket, now);
    socket.once("close", () => this.release(socket));
    return true;
  }

  /** `socket`'s upgrade starts now: its age counts from here, not from the turns it waited for. */
  started(socket: Duplex): void {
    if (this.holders.has(socket)) this.holders.set(socket, this.now());
  }

  /** The handshake on `socket` is over (registered, refused or closed): its place is free. */
  release(socket: object): void {
    this.holders.delete(socket as Duplex);
  }

  private dropStale(now: number): boolean {
    const oldest = this.holders.entries().next();
    if (oldest.done || now - oldest.value[1] < STALE_HANDSHAKE_MS) return false;
    this.holders.delete(oldest.value[0]);
    oldest.value[0].destroy();
    return true;
  }

  /** Runs `start` in this turn if its share is not used up, else in a later turn. */
  schedule(start: () => void): void {
    if (this.startedThisTurn < this.perTurn && this.waiting.length === 0) {
      this.startedThisTurn++;
      this.resetAtNextTurn();
      start();
      return;
    }
    this.waiting.push(start);
    this.resetAtNextTurn();
  }

  private resetAtNextTurn(): void {
    if (this.turnReset) return;
    this.turnReset = true;
    setImmediate(() => {
      this.turnReset = false;
      this.startedThisTurn = 0;
      const batch = this.waiting.splice(0, this.perTurn);
      this.startedThisTurn = batch.length;
      if (this.waiting.length > 0 || batch.length > 0) this.resetAtNextTurn();
      for (const start of batch) start();
    });
  }
}

/** A Retry-After value in whole seconds, spread over 1..RETRY_AFTER_SPREAD_S. */
export function spreadRetryAfter(random: () => number = Math.random): string {
  return String(1 + Math.floor(random() * RETRY_AFTER_SPREAD_S));
}
