import type { Server, Socket } from "node:net";
import { addressKey } from "./address-key.ts";

// The per-address cap on connections nobody has vouched for yet. A TCP connection counts against
// its peer's address from the moment it is accepted until it closes, or until it proves who it is:
// a host that registered (its key, a join code or the shared secret), a console page whose upgrade
// carried a live sign-in. Everything else counts while it is open: a half-sent request, an HTTP
// keep-alive connection, a WebSocket that has not registered yet. Past the cap, a new connection is
// dropped the moment it is accepted, before TLS or HTTP spend anything on it.

export interface ConnectionCapsOptions {
  maxPerAddress: number;
  /** Peers exempt from the cap: trusted reverse proxies, which carry everybody's connections. */
  exempt: (address: string) => boolean;
  /** Told each connection dropped over the cap. */
  onRefused: (address: string) => void;
}

export class ConnectionCaps {
  /**
   * The counted connections still open, by peer address and port: the address key they count
   * against, the TCP socket, and its 'close' listener — taken off when the connection is vouched
   * for, so nothing of the cap's stays on a registered host's socket while it is connected.
   */
  private readonly counted = new Map<string, { key: string; socket: Socket; closed: () => void }>();
  private readonly perAddress = new Map<string, number>();

  constructor(private readonly options: ConnectionCapsOptions) {}

  /** Counts every connection `server` accepts from now on; ahead of the server's own listeners. */
  attach(server: Server): void {
    server.prependListener("connection", (socket: Socket) => this.admit(socket));
  }

  /** Connections counted against `address` now. */
  countFor(address: string): number {
    return this.perAddress.get(addressKey(address)) ?? 0;
  }

  /**
   * The connection under `socket` (a TLS socket or the TCP one) proved who it is: it no longer
   * counts against its address. Nothing happens for one that was never counted or has closed.
   */
  vouch(socket: Socket): void {
    this.release(connectionId(socket));
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy(); // reset before we even saw it: nothing to serve
      return;
    }
    if (this.options.exempt(address)) return;
    const key = addressKey(address);
    const count = this.perAddress.get(key) ?? 0;
    if (count >= this.options.maxPerAddress) {
      socket.destroy();
      this.options.onRefused(address);
      return;
    }
    // The TLS socket built over this one reports the same peer address and port, so either finds it.
    const id = connectionId(socket);
    this.release(id); // a connection of the same peer and port must have closed: its close is late
    this.perAddress.set(key, (this.perAddress.get(key) ?? 0) + 1);
    const closed = () => this.release(id);
    this.counted.set(id, { key, socket, closed });
    socket.once("close", closed);
  }

  private release(id: string): void {
    const counted = this.counted.get(id);
    if (counted === undefined) return;
    this.counted.delete(id);
    counted.socket.removeListener("close", counted.closed);
    const { key } = counted;
    const left = (this.perAddress.get(key) ?? 1) - 1;
    if (left > 0) this.perAddress.set(key, left);
    else this.perAddress.delete(key);
  }
}

/** One TCP connection: its peer's address and port (unique among the open connections to one server). */
function connectionId(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
