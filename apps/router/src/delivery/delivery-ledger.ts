import type { ForwardResponseFrame, HostPushFrame, PushAckFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { SentMessage } from "../chat/chat-types.ts";
import { lateReplyText, rpcErrorText } from "../chat/user-messages.ts";
import { type NodeAnswer, nodeAnswerOf } from "../contracts/node-answer.ts";
import type { AnswerWaiters } from "../contracts/node-frames.ts";
import type { NodeDirectory, NodeSender } from "../registry/node-registry.ts";
import type { DeliveredStore } from "./delivered-store.ts";
import type { NodeNotices, PushOutcome } from "./node-notices.ts";
import { PushGuard, type PushLimits, type PushVerdict } from "./push-guard.ts";
import type { RequestLog } from "./request-log.ts";

// The one owner of delivery: exactly once for the user over an at-least-once wire. Every item a
// node's outbox sends (an answer, a push) is claimed by its delivery id, shown in the chat once,
// and acknowledged (`push_ack`) to the node on whatever connection it has then; a resend of a
// delivered id gets the ack again and nothing else. An answer goes to the request waiting for
// it (`forward()` resolves with it; the dispatcher shows it, then calls `shown`). One the router
// no longer waits for (it restarted, or gave up) is shown as a late answer in the chat the router
// recorded for that request — never in a chat the node names. Pushes and late answers first pass
// the PushGuard (served user, rate, size).

export interface DeliveryLedgerDeps {
  notices: NodeNotices;
  delivered: DeliveredStore;
  requests: RequestLog;
  /** Who each node serves, for the push guard; and where acks and refusals are sent. */
  nodes: NodeDirectory & NodeSender;
  pushLimits: PushLimits;
  now: () => number;
  logger: Logger;
}

export class DeliveryLedger {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly guard: PushGuard;

  constructor(private readonly deps: DeliveryLedgerDeps) {
    this.guard = new PushGuard(deps.nodes, deps.pushLimits, deps.now);
  }

  /** An answer (or a failure): to the request still `waiting` for it, else shown as a late answer. */
  answer(nodeId: string, frame: ForwardResponseFrame, waiting: AnswerWaiters): void {
    if (!this.claim(nodeId, frame.delivery_id)) {
      // A request forwarded again after a restart, whose first answer came back before it and was
      // shown as late: the node answers the copy with the same delivery id. Its wait ends, silently.
      waiting.resolve(frame.id, { ...nodeAnswerOf(frame, nodeId), alreadyShown: true });
      return;
    }
    const answer = nodeAnswerOf(frame, nodeId);
    if (waiting.resolve(frame.id, answer)) return; // acknowledged once shown, by `shown`
    this.deliverLate(nodeId, frame, answer);
  }

  /** A notification, task completion or file the node pushes on its own. */
  push(nodeId: string, frame: HostPushFrame): void {
    if (!this.claim(nodeId, frame.delivery_id)) return;
    this.deliver(nodeId, frame, { userId: frame.user_id, type: frame.type });
  }

  /** The dispatcher showed (or failed to show) an answer that `forward()` resolved with. */
  shown(nodeId: string, deliveryId: string, sent: SentMessage | undefined): void {
    this.settle(
      nodeId,
      deliveryId,
      sent
        ? { ok: true, messageId: sent.messageId }
        : { ok: false, error: "the chat platform did not accept it" },
    );
  }

  /** Resolves once every push and late answer started so far has settled (router shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private deliverLate(nodeId: string, frame: ForwardResponseFrame, { answer }: NodeAnswer): void {
    const origin = this.deps.requests.originOf(nodeId, frame.id);
    if (!origin) {
      this.deps.logger.warn(
        { nodeId, requestId: frame.id },
        "answer to a request never forwarded to this node; dropped",
      );
      this.settle(nodeId, frame.delivery_id, { ok: false, error: "answer to an unknown request" });
      return;
    }
    this.deps.logger.info(
      { nodeId, requestId: frame.id },
      "answer for a request no longer waited for; sent as late",
    );
    const text = answer.ok ? answer.text : rpcErrorText(answer.error, nodeId);
    const late: HostPushFrame = {
      type: "notify",
      user_id: origin.userId,
      platform: origin.platform,
      chat_id: origin.chatId,
      text: lateReplyText(text),
      delivery_id: frame.delivery_id,
      ...(answer.buttons ? { buttons: answer.buttons } : {}),
    };
    this.deliver(nodeId, late, { requestId: frame.id, type: "late answer" });
  }

  /** Claims the id; false if it is a repeat (acknowledged again if it was delivered). */
  private claim(nodeId: string, deliveryId: string): boolean {
    const start = this.deps.delivered.begin(`${nodeId}/${deliveryId}`);
    if (start.state === "new") return true;
    if (start.state === "delivered") {
      this.deps.logger.info({ nodeId, deliveryId }, "duplicate dropped; acknowledged again");
      const ack: PushAckFrame = {
        type: "push_ack",
        delivery_id: deliveryId,
        ok: true,
        ...messageId(start.messageId),
      };
      // A first copy whose record is still being committed: acknowledged once it is.
      this.afterCommit(nodeId, deliveryId, this.deps.delivered.committed(`${nodeId}/${deliveryId}`), ack);
    }
    return false; // in flight: the first copy's ack answers for both
  }

  /** Past the guard, into the chat, then acknowledged. */
  private deliver(nodeId: string, frame: HostPushFrame, about: Record<string, unknown>): void {
    const verdict = this.guard.check(nodeId, frame);
    if (!verdict.ok) {
      this.refuse(nodeId, frame.delivery_id, verdict, about);
      return;
    }
    const work = this.deps.notices
      .deliverPush(nodeId, verdict.frame)
      .catch(
        (error: unknown): PushOutcome => ({ ok: false, error: (error as Error)?.message ?? String(error) }),
      )
      .then((outcome) => this.settle(nodeId, frame.delivery_id, outcome));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /**
   * An item the guard did not let through. Refused for good: acknowledged as not delivered, so
   * the host stops resending it. Over the rate: the claim is released and the host told to retry
   * later (the item stays in its outbox), so nothing is lost.
   */
  private refuse(
    nodeId: string,
    deliveryId: string,
    verdict: Exclude<PushVerdict, { ok: true }>,
    about: Record<string, unknown>,
  ): void {
    if (verdict.kind === "refused") {
      this.deps.logger.warn({ nodeId, ...about }, `push dropped: ${verdict.error}`);
      this.settle(nodeId, deliveryId, { ok: false, error: verdict.error });
      return;
    }
    this.deps.logger.warn({ nodeId, ...about }, "push over the node's rate; told to retry");
    this.deps.delivered.abandon(`${nodeId}/${deliveryId}`);
    this.deps.nodes.send(nodeId, {
      type: "error",
      code: "RATE_LIMITED",
      message: `node ${nodeId} sent more pushes than the router takes per minute; retry later`,
      retry_after_s: verdict.retryAfterS,
      delivery_id: deliveryId,
    });
  }

  private settle(nodeId: string, deliveryId: string, outcome: PushOutcome): void {
    const key = `${nodeId}/${deliveryId}`;
    if (outcome.ok) {
      const ack: PushAckFrame = {
        type: "push_ack",
        delivery_id: deliveryId,
        ok: true,
        ...messageId(outcome.messageId),
      };
      this.afterCommit(nodeId, deliveryId, this.deps.delivered.finish(key, outcome.messageId), ack);
    } else {
      this.deps.delivered.abandon(key);
      this.ack(nodeId, { type: "push_ack", delivery_id: deliveryId, ok: false, error: outcome.error });
    }
  }

  /**
   * The ack leaves only once the delivered id is committed. If the commit failed, the item is in
   * the chat all the same: it is acknowledged anyway (a resend would show it twice), and said.
   */
  private afterCommit(nodeId: string, deliveryId: string, committed: Promise<void>, ack: PushAckFrame): void {
    // One settle handler each way (not catch, then, finally: four promises more per answer).
    const work: Promise<void> = committed.then(
      () => this.acked(work, nodeId, ack),
      (error: unknown) => {
        this.deps.logger.error(
          { err: error, nodeId, deliveryId },
          "delivered id not committed; acknowledged",
        );
        this.acked(work, nodeId, ack);
      },
    );
    this.inFlight.add(work);
  }

  private acked(work: Promise<void>, nodeId: string, ack: PushAckFrame): void {
    this.inFlight.delete(work);
    this.ack(nodeId, ack);
  }

  private ack(nodeId: string, frame: PushAckFrame): void {
    // No connection now: the node resends after it reconnects and gets the ack then.
    if (!this.deps.nodes.send(nodeId, frame))
      this.deps.logger.info({ nodeId, deliveryId: frame.delivery_id }, "ack deferred");
  }
}

const messageId = (id: string | undefined) => (id ? { message_id: id } : {});
