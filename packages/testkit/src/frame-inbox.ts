import type { WebSocket } from "ws";

// Collects every JSON frame a socket receives so tests can wait for the one they expect. A
// waiting `next` is woken by each arriving frame (no polling), so a test that exchanges
// thousands of frames does not pay a poll interval for each.

export type AnyFrame = { type: string } & Record<string, unknown>;

export class FrameInbox {
  readonly frames: AnyFrame[] = [];
  private cursor = 0;
  private readonly waiting = new Set<() => void>();

  constructor(socket: WebSocket) {
    socket.on("message", (data) => {
      try {
        this.frames.push(JSON.parse(data.toString()) as AnyFrame);
      } catch {
        this.frames.push({ type: "<non-json>", raw: data.toString() });
      }
      for (const wake of this.waiting) wake();
    });
  }

  /** The next unseen frame of `type` (one of several, if a list) matching `where`, waiting for it if needed. */
  next(
    type: string | string[],
    where: (frame: AnyFrame) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<AnyFrame> {
    return this.waitForFrame(
      type,
      where,
      () => this.cursor,
      timeoutMs,
      (index) => {
        this.cursor = index + 1;
      },
    );
  }

  /**
   * The first frame of `type` matching `where` at or after index `from` of `frames`, waiting for
   * it if needed; unlike `next`, it does not move the cursor.
   */
  arrival(
    type: string | string[],
    where: (frame: AnyFrame) => boolean = () => true,
    from = this.frames.length,
    timeoutMs = 5000,
  ): Promise<AnyFrame> {
    return this.waitForFrame(
      type,
      where,
      () => from,
      timeoutMs,
      () => {},
    );
  }

  private waitForFrame(
    type: string | string[],
    where: (frame: AnyFrame) => boolean,
    from: () => number,
    timeoutMs: number,
    taken: (index: number) => void,
  ): Promise<AnyFrame> {
    const types = Array.isArray(type) ? type : [type];
    const take = (): AnyFrame | undefined => {
      for (let i = from(); i < this.frames.length; i++) {
        const frame = this.frames[i];
        if (frame && types.includes(frame.type) && where(frame)) {
          taken(i);
          return frame;
        }
      }
      return undefined;
    };
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        outcome();
      };
      const wake = () => {
        try {
          const frame = take();
          if (frame) settle(() => resolve(frame));
        } catch (error) {
          settle(() => reject(error));
        }
      };
      const timer = setTimeout(
        () => settle(() => reject(new Error(`timed out waiting for a '${types.join("' or '")}' frame`))),
        timeoutMs,
      );
      this.waiting.add(wake);
      wake(); // it may be here already
    });
  }

  ofType(type: string): AnyFrame[] {
    return this.frames.filter((f) => f.type === type);
  }
}
