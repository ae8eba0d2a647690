import type { Duplex } from "node:stream";
import { TurnShare } from "./turn-share.ts";

// How many node handshakes the router runs at once, and how many it starts in one turn of the
// event loop. The token bucket (handshake-throttle.ts) bounds the rate; this bounds the work that
// can pile up inside one turn and stay in flight: after a router restart thousands of upgrades can
// land in the same turn, and each one started is a challenge, a key check and a registration the
// loop owes before it answers chat again. Upgrades past the per-turn share wait for the next turn
// (turn-share.ts), and so do register frames past theirs; past the in-flight bound upgrades are
// refused (503 + Retry-After, spread so the refused do not all come back in the same second).
// A stranger who names a paired node's id (ids are no secret) and then says nothing would hold a
// place until the handshake timeout; when all places are taken, the oldest handshake that has had
// STALE_HANDSHAKE_MS since its upgrade started is dropped for the newcomer — a host answers the
// challenge in milliseconds.

/**
 * Handshakes between an admitted upgrade and the node's registration (or the socket's close). The
 * work of one turn is bounded by the shares per turn, not by this: it bounds what waits on hosts'
 * answers (at 64, a storm's 10,000 hosts, slow to answer, came back in 82–88 s instead of 27 s).
 */
export const MAX_HANDSHAKES_IN_FLIGHT = 256;
/** Upgrades handed to the WebSocket server in one turn of the event loop. */
export const HANDSHAKES_PER_TURN = 16;
/** Register frames handled in one turn (each a signature check and a registration, ~0.5 ms). */
export const REGISTRATIONS_PER_TURN = 8;
/** When every place is taken, a handshake this old gives its place to a new one. */
export const STALE_HANDSHAKE_MS = 1_000;
/** Retry-After for a refused upgrade is drawn from 1..this many seconds. */
export const RETRY_AFTER_SPREAD_S = 5;

export class HandshakeAdmission {
  private readonly upgrades: TurnShare;
  private readonly registrations: TurnShare;
  /** The sockets holding a place, oldest first, with when they took it. */
  private readonly holders = new Map<Duplex, number>();
  /**
   * The holders' 'close' listener: one function for every socket, taken off when the place is
   * given back. A closure per socket would stay on a host's socket as long as the host is connected.
   */
  private readonly holderClosed: (this: Duplex) => void;

  constructor(
    private readonly maxInFlight = MAX_HANDSHAKES_IN_FLIGHT,
    perTurn = HANDSHAKES_PER_TURN,
    private readonly now: () => number = Date.now,
    registrationsPerTurn = REGISTRATIONS_PER_TURN,
  ) {
    this.upgrades = new TurnShare(perTurn);
    this.registrations = new TurnShare(registrationsPerTurn);
    const admission = this;
    this.holderClosed = function (this: Duplex) {
      admission.release(this);
    };
  }

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
    socket.on("close", this.holderClosed);
    return true;
  }

  /** `socket`'s upgrade starts now: its age counts from here, not from the turns it waited for. */
  started(socket: Duplex): void {
    if (this.holders.has(socket)) this.holders.set(socket, this.now());
  }

  /** The handshake on `socket` is over (registered, refused or closed): its place is free. */
  release(socket: Duplex): void {
    if (this.holders.delete(socket)) socket.removeListener("close", this.holderClosed);
  }

  private dropStale(now: number): boolean {
    const oldest = this.holders.entries().next();
    if (oldest.done || now - oldest.value[1] < STALE_HANDSHAKE_MS) return false;
    this.release(oldest.value[0]);
    oldest.value[0].destroy();
    return true;
  }

  /** Runs `start` (an upgrade) in this turn if its share is not used up, else in a later turn. */
  schedule(start: () => void): void {
    this.upgrades.schedule(start);
  }

  /**
   * Runs `register` (a node's register frame: its key checked, the node attached) in this turn if
   * its share is not used up, else in a later turn. Upgrades and registrations have a share each:
   * the registrations of MAX_HANDSHAKES_IN_FLIGHT hosts can all land in one turn.
   */
  scheduleRegistration(register: () => void): void {
    this.registrations.schedule(register);
  }
}

/** A Retry-After value in whole seconds, spread over 1..RETRY_AFTER_SPREAD_S. */
export function spreadRetryAfter(random: () => number = Math.random): string {
  return String(1 + Math.floor(random() * RETRY_AFTER_SPREAD_S));
}
