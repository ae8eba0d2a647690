import type { ErrorCode } from "@phonework/protocol";

/** A failure with a wire code (e.g. QUEUE_FULL): the router turns the code into the user's message. */
export class WireError extends Error {
  override readonly name = "WireError";
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
