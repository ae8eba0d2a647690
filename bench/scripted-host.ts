import type { ForwardFrame } from "../packages/protocol/src/index.ts";
import { encodeFrame } from "../packages/protocol/src/index.ts";
import { registrationFor } from "./sim-host.ts";
import { WebSocket } from "./ws.ts";

// A host under the bench's control, for failure timings: it registers once, answers pings until
// told to go silent, and never reconnects. `vanish` drops its TCP connection without a close frame.

export class ScriptedHost {
  /** performance.now() of the last pong sent. */
  lastPongAt = Number.NaN;
  private pongsLeft = Number.POSITIVE_INFINITY;
  private onSilent: () => void = () => {};
  private readonly forwards: Array<(frame: ForwardFrame) => void> = [];

  private constructor(private readonly socket: WebSocket) {}

  static connect(url: string, secret: string, nodeId: string): Promise<ScriptedHost> {
    const socket = new WebSocket(url, {
      headers: { Authorization: `Bearer ${secret}` },
      perMessageDeflate: false,
    });
    const host = new ScriptedHost(socket);
    socket.on("error", () => {}); // a vanished or cut-off host has nothing to report
    return new Promise((resolve, reject) => {
      socket.once("close", (code) => reject(new Error(`${nodeId} closed (${code}) before registering`)));
      socket.on("open", () => socket.send(registrationFor(nodeId)));
      socket.on("message", (data) => {
        const frame = JSON.parse(String(data)) as { type: string; ts?: number };
        if (frame.type === "register_ok") resolve(host);
        else if (frame.type === "ping") host.answerPing(frame.ts ?? 0);
        else if (frame.type === "forward")
          for (const take of host.forwards.splice(0)) take(frame as ForwardFrame);
      });
    });
  }

  /** Answers `count` more pings, then none, as a hung process or a dead link would; resolves then. */
  silenceAfter(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.pongsLeft = count;
      this.onSilent = resolve;
    });
  }

  /** Resolves with the next forwarded request (which this host never answers). */
  nextForward(): Promise<ForwardFrame> {
    return new Promise((resolve) => this.forwards.push(resolve));
  }

  /** Destroys the TCP connection at once, with no WebSocket close handshake. */
  vanish(): void {
    this.socket.terminate();
  }

  private answerPing(ts: number): void {
    if (this.pongsLeft <= 0) return;
    this.socket.send(encodeFrame({ type: "pong", ts }));
    this.lastPongAt = performance.now();
    if (--this.pongsLeft === 0) this.onSilent();
  }
}
