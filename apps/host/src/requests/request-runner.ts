import {
  type ErrorCode,
  type ForwardFrame,
  type ForwardResponseFrame,
  type HostFrame,
  WireError,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { MessageHandler } from "../contracts/message-handler.ts";
import { toReply } from "../contracts/reply.ts";
import type { DetailSink } from "../contracts/turn-detail.ts";

// Runs forwarded requests through the handler and answers each under its correlation id.
// The correlation id is the idempotency key: a request delivered twice runs once, and the second
// delivery gets the first result. Answers go through the durable outbox (`deliver`), so one
// outlives the router connection it was asked on — failures too: a handler failure is an answer
// carrying an error. Only a cancelled request (the router gave up on it, or the host is
// stopping) is reported live, whatever the handler returned.

/** How many finished requests are remembered for duplicate deliveries. */
const REMEMBERED = 1000;

/** An answer before the outbox gives it its delivery id. */
type Answer = Omit<ForwardResponseFrame, "delivery_id">;

export class RequestRunner {
  private readonly running = new Map<string, AbortController>();
  /** Finished requests, oldest first (a Map keeps insertion order). */
  private readonly finished = new Map<string, Answer>();

  constructor(
    private readonly handler: MessageHandler,
    /** Live frames: progress and errors. */
    private readonly send: (frame: HostFrame) => boolean,
    /** Durable answers: the outbox, keyed by delivery id. */
    private readonly deliver: (answer: Answer, deliveryId: string) => void,
    private readonly logger: Logger,
    /** This host's own SERVES_USERS rule: the router checked already, and a host does not rely on it. */
    private readonly servesUser: (userId: string) => boolean = () => true,
  ) {}

  get active(): number {
    return this.running.size;
  }

  run(request: ForwardFrame): void {
    if (this.running.has(request.id)) return; // delivered twice while running: one run, one answer
    const done = this.finished.get(request.id);
    if (done) {
      this.logger.info({ requestId: request.id }, "request delivered again; sending the first result");
      this.deliver(done, replyDeliveryId(request.id));
      return;
    }
    if (!this.servesUser(request.user_id)) {
      this.log(request).warn("request refused: this node's SERVES_USERS does not name the user");
      this.fail(request, "UNAUTHORIZED", "this node does not serve you (its SERVES_USERS)");
      return;
    }
    const controller = new AbortController();
    this.running.set(request.id, controller);
    const { signal } = controller;
    const progress = progressSink(this.send, request.id, signal);
    // Details only where the router asked for them: an older router would show them as status lines.
    const detail = request.details ? detailSink(this.send, request.id, signal) : undefined;
    this.handler
      .handle(request, { signal, progress, ...(detail ? { detail } : {}) })
      // Each outcome ends the run itself (no `finally`: one promise and one microtask less per request).
      .then(
        (value) => {
          this.running.delete(request.id);
          if (signal.aborted) return this.cancelled(request);
          const { text, buttons } = toReply(value);
          this.answer(request, { text, ...(buttons?.length ? { buttons } : {}) });
        },
        (error: unknown) => {
          this.running.delete(request.id);
          if (error instanceof WireError) {
            this.log(request).warn({ code: error.code, message: error.message }, "request refused");
            this.fail(request, error.code, error.message);
          } else if (signal.aborted) {
            this.cancelled(request);
          } else {
            this.log(request).error({ err: error }, "handler failed");
            this.fail(request, "INTERNAL", `the host failed: ${(error as Error)?.message ?? error}`);
          }
        },
      );
  }

  cancel(id: string, reason: string): void {
    const controller = this.running.get(id);
    if (!controller) return;
    this.logger.info({ requestId: id, reason }, "request cancelled by router");
    controller.abort(new Error(reason));
  }

  cancelAll(reason: string): void {
    for (const id of this.running.keys()) this.cancel(id, reason);
  }

  /**
   * The request's own logger, made only when something is logged: a request that goes well logs
   * nothing, and a child logger per request showed in the profile (pino sets up its redaction
   * again for each). Each way a request ends logs at most once, so it is not kept.
   */
  private log(request: ForwardFrame): Logger {
    return this.logger.child({ requestId: request.id, userId: request.user_id });
  }

  /**
   * Cancelled (the router gave up, or the host is stopping): whatever the handler made of it,
   * nobody waits for an answer, so it is reported live and not kept to be shown late.
   */
  private cancelled(request: ForwardFrame): void {
    const frame: HostFrame = {
      type: "error",
      id: request.id,
      code: "CANCELLED",
      message: "request cancelled",
    };
    if (!this.send(frame)) this.log(request).info("router link is down; cancellation not reported");
  }

  private answer(
    request: ForwardFrame,
    outcome: Pick<ForwardResponseFrame, "text" | "error" | "buttons">,
  ): void {
    const answer: Answer = {
      type: "forward_response",
      id: request.id,
      ...outcome,
      user_id: request.user_id,
      platform: request.platform,
      chat_id: request.chat_id,
    };
    this.remember(answer);
    this.deliver(answer, replyDeliveryId(request.id));
  }

  /** A failure is an answer too: its text is the message, and `error` says it failed. */
  private fail(request: ForwardFrame, code: ErrorCode, message: string): void {
    this.answer(request, { text: message, error: { code, message } });
  }

  private remember(answer: Answer): void {
    this.finished.set(answer.id, answer);
    if (this.finished.size > REMEMBERED) this.finished.delete(this.finished.keys().next().value as string);
  }
}

// A request's status lines and details: live frames until it is cancelled. Made by these functions,
// not as named closures in `run`: the bundle keeps function names (keepNames), which costs a
// property definition on every named closure made per request (it showed in the profile).
type Send = (frame: HostFrame) => boolean;

function progressSink(send: Send, id: string, signal: AbortSignal): (text: string) => void {
  return (text) => {
    if (!signal.aborted) send({ type: "progress", id, text });
  };
}

function detailSink(send: Send, id: string, signal: AbortSignal): DetailSink {
  return (kind, text) => {
    if (!signal.aborted) send({ type: "progress", id, text, kind });
  };
}

export const replyDeliveryId = (requestId: string) => `reply-${requestId}`;
