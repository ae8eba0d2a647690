import { EventEmitter } from "node:events";
import type { IncomingMessage, Server } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

// Stands between the HTTP server's 'upgrade' event and the WebSocket plugin (which listens on the
// gate instead of the server). A refused handshake is answered on the raw socket before the web
// framework builds a request and reply for it. In a reconnect storm thousands of refusals can
// arrive in one turn of the event loop; answered through the framework, that one turn lasted
// seconds (see BENCHMARKS.md).

export interface Refusal {
  status: number;
  error: string;
  message: string;
  headers?: Record<string, string>;
}

/** Decides on an upgrade request: a refusal, or undefined to let it through. */
export type UpgradeJudge = (request: IncomingMessage) => Refusal | undefined;

/**
 * Where an admitted upgrade goes, and when: `emit` re-emits it as 'upgrade' on the gate (where the
 * WebSocket plugin listens), now or in a later turn (see handshake-admission.ts); a route may also
 * upgrade it itself (node sockets, node-websocket.ts).
 */
export type UpgradeRoute = (request: IncomingMessage, socket: Duplex, head: Buffer, emit: () => void) => void;

export class UpgradeGate extends EventEmitter {
  constructor(
    private readonly judge: UpgradeJudge,
    private readonly route: UpgradeRoute = (_request, _socket, _head, emit) => emit(),
  ) {
    super();
  }

  /** Starts judging `server`'s upgrade requests; admitted ones go their route. */
  attach(server: Server): void {
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = this.judge(request);
      if (refusal) refuse(socket, refusal);
      else
        this.route(request, socket, head, () => {
          // Gone while it waited for its turn: nothing to upgrade.
          if (!socket.destroyed) this.emit("upgrade", request, socket, head);
        });
    });
  }
}

function refuse(socket: Duplex, refusal: Refusal): void {
  socket.on("error", () => socket.destroy()); // the client may already be gone; nothing to do
  const body = JSON.stringify({ error: refusal.error, message: refusal.message });
  const headers = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    ...refusal.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head.join("")}\r\n${body}`);
}
