import { type HostFrame, WireError } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";

// The request/answer frames that are not deliveries: a status line (or a detail) for a request still running,
// and an `error` — the failure of one request (by its id), or the node saying something went
// wrong. An error answering a request of another feature's (an overview asked for) is that
// feature's to take first.

export type RpcFrame = Extract<HostFrame, { type: "progress" | "error" }>;

/** Takes an error frame answering a request it made; false when the id is not one of its. */
export type ErrorClaim = (nodeId: string, id: string, message: string) => boolean;

export function rpcFrames(claim: ErrorClaim = () => false): FrameTable<RpcFrame> {
  return ({ nodeId, pending, log }) => ({
    progress: (frame) => pending.progress(frame.id, frame.text, frame.kind),
    error: (frame) => {
      if (frame.id && claim(nodeId, frame.id, frame.message)) return;
      if (frame.id) pending.reject(frame.id, new WireError(frame.code, frame.message, nodeId));
      else log.warn({ code: frame.code, message: frame.message }, "node reported an error");
    },
  });
}
