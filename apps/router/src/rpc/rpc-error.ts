import type { ErrorCode } from "@phonework/protocol";

/** A forwarded request that did not get an answer; `code` decides what the user is told. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly nodeId?: string,
  ) {
    super(message);
  }
}
