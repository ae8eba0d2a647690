import { ConsoleCloseCode } from "../../src/console/console-close-codes.ts";
import type { ConsoleClientFrame, ConsoleServerFrame } from "../../src/console/console-frames.ts";

// The page's one WebSocket to the router. Frames go to `onFrame`; the state to `onState`. A lost
// connection is tried again with growing pauses (a restart, a phone waking up); a sign-out is final.

export type LinkState = "connecting" | "open" | "reconnecting" | "signed-out";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class ConsoleLink {
  private socket: WebSocket | undefined;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    private readonly onFrame: (frame: ConsoleServerFrame) => void,
    private readonly onState: (state: LinkState) => void,
    private readonly url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/console/ws`,
  ) {
    // The router pushes nothing to the user's phone while a page of theirs is on screen.
    document.addEventListener("visibilitychange", () => this.sendVisibility());
  }

  private sendVisibility(): void {
    this.send({ type: "visibility", visible: document.visibilityState === "visible" });
  }

  connect(): void {
    this.onState("connecting");
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = FIRST_RETRY_MS;
      this.sendVisibility();
      this.onState("open");
    };
    socket.onmessage = (event) => {
      if (typeof event.data === "string") this.onFrame(JSON.parse(event.data) as ConsoleServerFrame);
    };
    let opened = false;
    socket.addEventListener("open", () => {
      opened = true;
    });
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (event.code === ConsoleCloseCode.SIGNED_OUT) {
        this.onState("signed-out");
        return;
      }
      this.onState("reconnecting");
      // A socket refused at the upgrade says nothing about why: ask once whether the sign-in ended.
      const check = opened ? Promise.resolve(true) : this.signedIn();
      void check.then((signedIn) => {
        if (!signedIn) return this.onState("signed-out");
        setTimeout(() => this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      });
    };
  }

  private async signedIn(): Promise<boolean> {
    try {
      const response = await fetch("/console/session", { credentials: "same-origin", cache: "no-store" });
      return response.status !== 401;
    } catch {
      return true; // the router is unreachable: keep trying
    }
  }

  /** False when the socket is not open (the caller says so to the user). */
  send(frame: ConsoleClientFrame): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }
}
