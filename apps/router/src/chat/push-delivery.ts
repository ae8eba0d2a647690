import type { PushAckFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { DeliveredStore } from "../state/delivered-store.ts";
import type { PushFrame } from "../ws/node-socket.ts";
import type { NodeNotices } from "./node-notices.ts";

// Exactly-once for the user over an at-least-once wire: a pushed item with a delivery id is
// handed to the chat once, and acknowledged to the node (on whatever connection it has now);
// a resend of a delivered id gets the ack again and nothing else.

export class PushDelivery {
  constructor(
    private readonly notices: NodeNotices,
    private readonly delivered: DeliveredStore,
    /** Sends a frame on the node's current connection; false if it has none. */
    private readonly sendToNode: (nodeId: string, frame: PushAckFrame) => boolean,
    private readonly logger: Logger,
  ) {}

  async handle(nodeId: string, frame: PushFrame): Promise<void> {
    const deliveryId = frame.delivery_id;
    if (!deliveryId) {
      await this.notices.deliverPush(nodeId, frame);
      return;
    }
    const key = `${nodeId}/${deliveryId}`;
    const start = this.delivered.begin(key);
    if (start.state === "in_flight") return; // the first copy's ack will answer for both
    if (start.state === "delivered") {
      this.logger.info({ nodeId, deliveryId }, "duplicate push dropped; acknowledged again");
      this.ack(nodeId, {
        type: "push_ack",
        delivery_id: deliveryId,
        ok: true,
        ...messageId(start.messageId),
      });
      return;
    }
    const outcome = await this.notices.deliverPush(nodeId, frame).catch((error: unknown) => ({
      ok: false as const,
      error: (error as Error)?.message ?? String(error),
    }));
    if (outcome.ok) {
      this.delivered.finish(key, outcome.messageId);
      this.ack(nodeId, {
        type: "push_ack",
        delivery_id: deliveryId,
        ok: true,
        ...messageId(outcome.messageId),
      });
    } else {
      this.delivered.abandon(key);
      this.ack(nodeId, { type: "push_ack", delivery_id: deliveryId, ok: false, error: outcome.error });
    }
  }

  private ack(nodeId: string, frame: PushAckFrame): void {
    // No connection now: the node resends after it reconnects and gets the ack then.
    if (!this.sendToNode(nodeId, frame))
      this.logger.info({ nodeId, deliveryId: frame.delivery_id }, "ack deferred");
  }
}

const messageId = (id: string | undefined) => (id ? { message_id: id } : {});
