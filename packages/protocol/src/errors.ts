import { z } from "zod";

// Error codes carried on the wire. User-facing text is written from these in the router's chat layer.
export const ErrorCode = z.enum([
  "UNAUTHORIZED",
  "BAD_FRAME",
  "UNSUPPORTED_VERSION",
  "NOT_REGISTERED",
  "NODE_OFFLINE",
  "TIMEOUT",
  "QUEUE_FULL",
  "RATE_LIMITED",
  "CANCELLED",
  "INTERNAL",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * A failure that travels, or will travel, as a wire code: a host refusing a request (QUEUE_FULL),
 * or a request the router gave up on (NODE_OFFLINE, TIMEOUT). The code decides what the user is
 * told; `nodeId` says which node, when the router knows it.
 */
export class WireError extends Error {
  override readonly name = "WireError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly nodeId?: string,
  ) {
    super(message);
  }
}

// WebSocket close codes used by PhoneWork (4000-4999 is the application range).
export const CloseCode = {
  /** Standard: the peer broke the protocol (e.g. a frame before `register`). */
  POLICY_VIOLATION: 1008,
  /** Standard: a frame exceeded the negotiated max payload. */
  MESSAGE_TOO_BIG: 1009,
  /** Standard: the router is restarting; reconnect. */
  SERVICE_RESTART: 1012,
  /** A newer connection registered with the same node id. */
  REPLACED: 4000,
  /** `register` was refused; the reason is in the preceding `register_error`. */
  REGISTER_REFUSED: 4001,
  /** The node's key, signature or join code was refused (HTTP 401's twin), or the node was revoked. */
  UNAUTHORIZED: 4401,
} as const;
