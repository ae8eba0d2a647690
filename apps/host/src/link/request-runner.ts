import type { ForwardFrame, HostFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { MessageHandler } from "../handler/message-handler.ts";
import { WireError } from "../handler/wire-error.ts";

// Runs forwarded requests through the handler and sends each answer back under its
// correlation id. A handler failure becomes an error frame, never a crash.

export class RequestRunner {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly handler: MessageHandler,
    private readonly send: (frame: HostFrame) => boolean,
    private readonly logger: Logger,
  ) {}

  get active(): number {
    return this.running.size;
  }

  run(request: ForwardFrame): void {
    if (this.running.has(request.id)) return; // same request delivered twice: it is already running
    const controller = new AbortController();
    this.running.set(request.id, controller);
    const log = this.logger.child({ requestId: request.id, userId: request.user_id });
    const progress = (text: string) => {
      if (!controller.signal.aborted) this.send({ type: "progress", id: request.id, text });
    };
    this.handler
      .handle(request, { signal: controller.signal, progress })
      .then(
        (text) => this.reply({ type: "forward_response", id: request.id, text }, log),
        (error: unknown) => {
          const cancelled = controller.signal.aborted;
          if (error instanceof WireError)
            log.warn({ code: error.code, message: error.message }, "request refused");
          else log.error({ err: error }, "handler failed");
          const [code, message] =
            error instanceof WireError
              ? [error.code, error.message]
              : cancelled
                ? (["CANCELLED", "request cancelled"] as const)
                : (["INTERNAL", `the host failed: ${(error as Error)?.message ?? error}`] as const);
          this.reply({ type: "error", id: request.id, code, message }, log);
        },
      )
      .finally(() => this.running.delete(request.id));
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

  private reply(frame: HostFrame, log: Logger): void {
    if (!this.send(frame)) log.warn({ type: frame.type }, "router link is down; answer not delivered");
  }
}
