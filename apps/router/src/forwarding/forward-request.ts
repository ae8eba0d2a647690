import type { ForwardFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { IncomingMessage } from "../chat/chat-types.ts";
import type { NodeAnswer } from "../contracts/node-answer.ts";
import type { RequestLog } from "../delivery/request-log.ts";
import type { ForwardOptions } from "../node-link/node-connection.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import { peersOf } from "../registry/peer-nodes.ts";
import type { Forwarder } from "./forwarder.ts";

// One chat message on its way to one node: where it came from is recorded (a late answer goes back
// there and nowhere else), and once that record and the message itself are committed (usually one
// commit: IncomingMessage.stored) the forward frame is sent. No child
// logger per request: the ids to log with are handed back as plain fields (`about`).

export interface ForwardRequestDeps {
  /** Where each forwarded message came from: late answers go back there and nowhere else. */
  requests: RequestLog;
  forward: Forwarder;
  requestTimeoutMs: number;
  newId: () => string;
  logger: Logger;
}

/** Who a request's log lines are about. */
export interface RequestFields {
  requestId: string;
  nodeId: string;
  userId: string;
}

/**
 * Sends `text` (the message, or what routing left of it) to `nodeId` before this resolves, so the
 * user's next message cannot overtake it; `reply` resolves with the node's answer.
 */
export async function forwardRequest(
  deps: ForwardRequestDeps,
  message: IncomingMessage,
  to: { nodeId: string; nodes: readonly NodeInfo[]; text: string; details?: boolean },
  onProgress: NonNullable<ForwardOptions["onProgress"]>,
): Promise<{ about: RequestFields; reply: Promise<NodeAnswer> }> {
  const { nodeId } = to;
  // The same id each time this message is forwarded to this node (a restart may forward it again):
  // the node runs a request id once. Distinct per node, so each node's origin is its own.
  const id = message.requestKey ? `${message.requestKey}:${nodeId}` : deps.newId();
  const about = { requestId: id, nodeId, userId: message.userId };
  await deps.requests.record(id, {
    nodeId,
    userId: message.userId,
    platform: message.platform,
    chatId: message.chatId,
  });
  // Committed with the origin (handling began in the turn the message came), or before it.
  await message.stored;
  const frame: ForwardFrame = {
    type: "forward",
    id,
    user_id: message.userId,
    chat_id: message.chatId,
    platform: message.platform,
    text: to.text,
    message_id: message.messageId,
    nodes: peersOf(to.nodes, nodeId),
  };
  // Optional fields set only when present, in the schema's order (no empty object spread per message).
  if (to.details) frame.details = true;
  if (message.attachments)
    frame.attachments = message.attachments.map((file) => ({
      name: file.name,
      data_base64: file.data.toString("base64"),
      ...(file.mimeType ? { mime_type: file.mimeType } : {}),
    }));
  const reply = deps.forward(nodeId, frame, { timeoutMs: deps.requestTimeoutMs, onProgress });
  return { about, reply };
}
