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

/** The failure a node answered with (a `forward_response` carrying `error`), if it is one. */
export function answeredFailure(
  answer: { error?: { code: ErrorCode; message: string } },
  nodeId: string,
): RpcError | undefined {
  return answer.error ? new RpcError(answer.error.code, answer.error.message, nodeId) : undefined;
}
