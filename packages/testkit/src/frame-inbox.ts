import type { WebSocket } from "ws";
import { waitFor } from "./wait-for.ts";

// Collects every JSON frame a socket receives so tests can wait for the one they expect.

export type AnyFrame = { type: string } & Record<string, unknown>;

export class FrameInbox {
  readonly frames: AnyFrame[] = [];
  private cursor = 0;

  constructor(socket: WebSocket) {
    socket.on("message", (data) => {
      try {
        this.frames.push(JSON.parse(data.toString()) as AnyFrame);
      } catch {
        this.frames.push({ type: "<non-json>", raw: data.toString() });
      }
    });
  }

  /** The next unseen frame of `type` (one of several, if a list) matching `where`, waiting for it if needed. */
  async next(
    type: string | string[],
    where: (frame: AnyFrame) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<AnyFrame> {
    const types = Array.isArray(type) ? type : [type];
    return waitFor(
      () => {
        for (let i = this.cursor; i < this.frames.length; i++) {
          const frame = this.frames[i];
          if (frame && types.includes(frame.type) && where(frame)) {
            this.cursor = i + 1;
            return frame;
          }
        }
        return undefined;
      },
      { timeoutMs, message: `a '${types.join("' or '")}' frame` },
    );
  }

  ofType(type: string): AnyFrame[] {
    return this.frames.filter((f) => f.type === type);
  }
}
