import type { WebSocket } from "ws";
import type { AnyFrame, FrameInbox } from "./frame-inbox.ts";

// Which frames a peer sent in answer to one frame: send it, then a probe of an unknown type that
// the peer must refuse by name. A peer handles a socket's frames in order, so what it sent before
// refusing the probe answers the frame (plus anything unrelated the caller filters out).

export interface ProbedPeer {
  socket: WebSocket;
  /** Must be attached to `socket` before any call here, so it already holds a frame we waited for. */
  inbox: FrameInbox;
}

let probes = 0;

export async function framesAnswering(peer: ProbedPeer, raw: string | Buffer): Promise<AnyFrame[]> {
  const start = peer.inbox.frames.length;
  const refusal = `unknown frame type 'probe-${++probes}'`;
  const refused = nextFrame(peer.socket, (frame) => frame.message === refusal);
  peer.socket.send(raw, { binary: typeof raw !== "string" });
  peer.socket.send(JSON.stringify({ type: `probe-${probes}` }));
  await refused;
  const end = peer.inbox.frames.findIndex((frame, i) => i >= start && frame.message === refusal);
  return peer.inbox.frames.slice(start, end);
}

/**
 * The next JSON frame arriving on `socket` from now on that matches `where` (unlike
 * `FrameInbox.next`, which also looks at frames already received and moves the inbox's cursor).
 * Rejects at once if the socket closes first.
 */
export function nextFrame(
  socket: WebSocket,
  where: (frame: AnyFrame) => boolean,
  timeoutMs = 5000,
): Promise<AnyFrame> {
  return new Promise((resolve, reject) => {
    const settle = (result: { frame: AnyFrame } | { error: Error }) => {
      clearTimeout(timer);
      socket.off("message", onMessage);
      socket.off("close", onClose);
      if ("frame" in result) resolve(result.frame);
      else reject(result.error);
    };
    const onMessage = (data: Buffer) => {
      let frame: AnyFrame;
      try {
        frame = JSON.parse(data.toString()) as AnyFrame;
      } catch {
        return;
      }
      if (where(frame)) settle({ frame });
    };
    const onClose = (code: number, reason: Buffer) =>
      settle({ error: new Error(`the peer closed the socket (${code} ${reason}) instead of answering`) });
    const timer = setTimeout(() => settle({ error: new Error("no matching frame in time") }), timeoutMs);
    socket.on("message", onMessage);
    socket.on("close", onClose);
  });
}
