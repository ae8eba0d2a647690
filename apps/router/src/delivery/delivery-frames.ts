import type { HostFrame, HostPushFrame } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";
import type { DeliveryLedger } from "./delivery-ledger.ts";

/** What a node's outbox sends to be shown in a chat: answers, and what it pushes on its own. */
export type DeliveryFrame = Extract<
  HostFrame,
  { type: "forward_response" } | { type: HostPushFrame["type"] }
>;

/**
 * Every item goes to the ledger. `qualifyUser`: a push queued before the router named its
 * adapters (a reminder set last month) carries a bare user id, read as SERVES_USERS is read.
 */
export function deliveryFrames(
  ledger: Pick<DeliveryLedger, "answer" | "push">,
  qualifyUser: (id: string) => string = (id) => id,
): FrameTable<DeliveryFrame> {
  return ({ nodeId, pending }) => {
    const push = (frame: HostPushFrame) =>
      ledger.push(nodeId, { ...frame, user_id: qualifyUser(frame.user_id) });
    return {
      forward_response: (frame) => ledger.answer(nodeId, frame, pending),
      notify: push,
      task_complete: push,
      send_file: push,
    };
  };
}
