import type { ForwardResponseFrame, PushAckFrame, RouterFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { answeredFailure } from "../rpc/rpc-error.ts";
import type { DeliveredStore } from "../state/delivered-store.ts";
import type { RequestLog } from "../state/request-log.ts";
import type { PushFrame } from "../ws/node-socket.ts";
import type { SentMessage } from "./chat-adapter.ts";
import type { NodeNotices, PushOutcome } from "./node-notices.ts";
import type { PushGuard, PushVerdict } from "./push-guard.ts";
import { lateReplyText, rpcErrorText } from "./user-messages.ts";

// Exactly-once for the user over an at-least-once wire. An item with a delivery id (a push, or
// an answer to a forwarded message) is handed to the chat once and acknowledged to the node on
// whatever connection it has now; a resend of a delivered id gets the ack again and nothing else.
// An answer whose request the router no longer waits for (it restarted, or gave up) is still
// delivered, as a late answer, to the chat the router recorded for that request — never to a
// chat the node names. Every push first passes the PushGuard (served user, rate, size).

export class PushDelivery {
  /** Answers handed to a waiting request: node/request id → delivery id, until the chat has it. */
  private readonly awaitingChat = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly notices: NodeNotices,
    private readonly delivered: DeliveredStore,
    private readonly guard: PushGuard,
    private readonly requests: RequestLog,
    /** Sends a frame on the node's current connection; false if it has none. */
    private readonly sendToNode: (nodeId: string, frame: RouterFrame) => boolean,
    private readonly logger: Logger,
  ) {}

  async handle(nodeId: string, frame: PushFrame): Promise<void> {
    const deliveryId = frame.delivery_id;
    if (deliveryId && !this.start(nodeId, deliveryId)) return;
    const verdict = this.guard.check(nodeId, frame);
    if (!verdict.ok) {
      this.refuse(nodeId, deliveryId, verdict, { userId: frame.user_id, type: frame.type });
      return;
    }
    if (deliveryId) await this.deliver(nodeId, deliveryId, verdict.frame);
    else await this.notices.deliverPush(nodeId, verdict.frame);
  }

  /**
   * A push the guard did not let through. Refused for good: acknowledged as not delivered, so the
   * host stops resending it. Over the rate: the claim is released and the host told to retry later
   * (the item stays in its outbox), so nothing is lost.
   */
  private refuse(
    nodeId: string,
    deliveryId: string | undefined,
    verdict: Exclude<PushVerdict, { ok: true }>,
    about: Record<string, unknown>,
  ): void {
    if (verdict.kind === "refused") {
      this.logger.warn({ nodeId, ...about }, `push dropped: ${verdict.error}`);
      if (deliveryId) this.settle(nodeId, deliveryId, { ok: false, error: verdict.error });
      return;
    }
    this.logger.warn({ nodeId, ...about }, "push over the node's rate; told to retry");
    if (deliveryId) this.delivered.abandon(`${nodeId}/${deliveryId}`);
    this.sendToNode(nodeId, {
      type: "error",
      code: "RATE_LIMITED",
      message: `node ${nodeId} sent more pushes than the router takes per minute; retry later`,
      retry_after_s: verdict.retryAfterS,
      ...(deliveryId ? { delivery_id: deliveryId } : {}),
    });
  }

  /** An answer sent with a delivery id; `settlePending` hands it to the request if it is still waiting. */
  async handleReply(
    nodeId: string,
    frame: ForwardResponseFrame & { delivery_id: string },
    settlePending: () => boolean,
  ): Promise<void> {
    const deliveryId = frame.delivery_id;
    if (!this.start(nodeId, deliveryId)) return;
    if (settlePending()) {
      this.awaitingChat.set(`${nodeId}/${frame.id}`, deliveryId); // settled by replyShown
      return;
    }
    const origin = this.requests.originOf(nodeId, frame.id);
    if (!origin) {
      this.logger.warn(
        { nodeId, requestId: frame.id },
        "answer to a request never forwarded to this node; dropped",
      );
      this.settle(nodeId, deliveryId, { ok: false, error: "answer to an unknown request" });
      return;
    }
    this.logger.info(
      { nodeId, requestId: frame.id },
      "answer for a request no longer waited for; sent as late",
    );
    const failure = answeredFailure(frame, nodeId);
    const text = failure ? rpcErrorText(failure, nodeId) : frame.text;
    const late: PushFrame = {
      type: "notify",
      user_id: origin.userId,
      platform: origin.platform,
      chat_id: origin.chatId,
      text: lateReplyText(text),
    };
    const verdict = this.guard.check(nodeId, late);
    if (!verdict.ok) {
      this.refuse(nodeId, deliveryId, verdict, { requestId: frame.id, type: "late answer" });
      return;
    }
    await this.deliver(nodeId, deliveryId, verdict.frame);
  }

  /** The dispatcher showed (or failed to show) the answer to request `requestId`. */
  replyShown(nodeId: string, requestId: string, sent: SentMessage | undefined): void {
    const key = `${nodeId}/${requestId}`;
    const deliveryId = this.awaitingChat.get(key);
    if (!deliveryId) return;
    this.awaitingChat.delete(key);
    this.settle(
      nodeId,
      deliveryId,
      sent
        ? { ok: true, messageId: sent.messageId }
        : { ok: false, error: "the chat platform did not accept it" },
    );
  }

  /** Claims the id; false if it is a repeat (acknowledged again if it was delivered). */
  private start(nodeId: string, deliveryId: string): boolean {
    const start = this.delivered.begin(`${nodeId}/${deliveryId}`);
    if (start.state === "new") return true;
    if (start.state === "delivered") {
      this.logger.info({ nodeId, deliveryId }, "duplicate dropped; acknowledged again");
      this.ack(nodeId, {
        type: "push_ack",
        delivery_id: deliveryId,
        ok: true,
        ...messageId(start.messageId),
      });
    }
    return false; // in flight: the first copy's ack answers for both
  }

  /** Resolves once every delivery started so far has settled (router shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(nodeId: string, deliveryId: string, frame: PushFrame): Promise<void> {
    const work = this.notices
      .deliverPush(nodeId, frame)
      .catch(
        (error: unknown): PushOutcome => ({ ok: false, error: (error as Error)?.message ?? String(error) }),
      )
      .then((outcome) => this.settle(nodeId, deliveryId, outcome));
    this.inFlight.add(work);
    await work.finally(() => this.inFlight.delete(work));
  }

  private settle(nodeId: string, deliveryId: string, outcome: PushOutcome): void {
    const key = `${nodeId}/${deliveryId}`;
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
