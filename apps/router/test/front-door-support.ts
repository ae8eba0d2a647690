import { connect, type Socket } from "node:net";
import { NODE_ID_HEADER } from "@phonework/protocol";
import { onCleanup } from "./support.ts";

// One attacker with one address, as the security review's script was: raw TCP connections from
// 127.0.0.2 (Linux routes all of 127/8 to loopback, so the legitimate host and the webhook keep
// 127.0.0.1), each doing as little as it can to hold a socket of the router's. A flood re-opens
// every connection the router drops, for as long as it runs.

export const ATTACKER = "127.0.0.2";

/** What each connection does once connected: nothing, a WebSocket upgrade then nothing, or half a request. */
export type Hold = "idle" | "upgrade" | "half-request";

export interface Held {
  hold: Hold;
  connectedAt: number | undefined;
  /** When the router answered anything (a status line, a WebSocket frame). */
  answeredAt: number | undefined;
  /** The HTTP status the router answered with, if any (101: it got a WebSocket). */
  status: number | undefined;
  closedAt: number | undefined;
}

export interface Flood {
  /** Every connection made so far, oldest first. */
  readonly held: Held[];
  /** Connections the router has upgraded to a WebSocket so far. */
  upgraded(): number;
  stop(): void;
}

/** How soon a kept flood opens a connection again after the router dropped one. */
const REOPEN_MS = 50;

/**
 * Opens `count` connections to `port` from ATTACKER (or `from`) at once, each holding `hold` (or the holds in
 * turn); with `keep`, one that closes is opened again (after REOPEN_MS) holding the same, so the
 * flood always tries to hold `count`.
 */
export function flood(
  port: number,
  holds: Hold | Hold[],
  count: number,
  options: { keep?: boolean; nodeId?: string; path?: string; from?: string } = {},
): Flood {
  const held: Held[] = [];
  const sockets = new Set<Socket>();
  let running = true;
  const turns = Array.isArray(holds) ? holds : [holds];
  const open = (hold: Hold) => {
    const entry: Held = {
      hold,
      connectedAt: undefined,
      answeredAt: undefined,
      status: undefined,
      closedAt: undefined,
    };
    held.push(entry);
    const socket = connect({ host: "127.0.0.1", port, localAddress: options.from ?? ATTACKER });
    sockets.add(socket);
    socket.on("connect", () => {
      entry.connectedAt = performance.now();
      socket.write(firstBytes(hold, port, options));
    });
    socket.on("data", (chunk: Buffer) => {
      if (entry.answeredAt !== undefined) return;
      entry.answeredAt = performance.now();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1];
      if (status) entry.status = Number(status);
    });
    socket.on("error", () => {}); // reset by the router: that is the point
    socket.on("close", () => {
      entry.closedAt = performance.now();
      sockets.delete(socket);
      if (running && options.keep) setTimeout(() => running && open(hold), REOPEN_MS);
    });
  };
  for (let i = 0; i < count; i++) open(turns[i % turns.length] ?? "idle");
  const stop = () => {
    running = false;
    for (const socket of sockets) socket.destroy();
  };
  onCleanup(stop);
  return { held, upgraded: () => held.filter((entry) => entry.status === 101).length, stop };
}

function firstBytes(hold: Hold, port: number, options: { nodeId?: string; path?: string }): string {
  const host = `Host: 127.0.0.1:${port}\r\n`;
  if (hold === "idle") return "";
  if (hold === "half-request") return `GET ${options.path ?? "/health"} HTTP/1.1\r\n${host}`;
  return (
    `GET ${options.path ?? "/ws/node"} HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: websocket\r\n` +
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
    (options.nodeId ? `${NODE_ID_HEADER}: ${options.nodeId}\r\n` : "") +
    "\r\n"
  );
}

/** How long a connection was held open, in ms (undefined while it is open, or if it never connected). */
export function lifetime(entry: Held): number | undefined {
  if (entry.connectedAt === undefined || entry.closedAt === undefined) return undefined;
  return entry.closedAt - entry.connectedAt;
}

/** A client's text frame (masked, as RFC 6455 requires of clients), for payloads under 126 bytes. */
export function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length >= 126) throw new Error("maskedText: payload too long");
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}
