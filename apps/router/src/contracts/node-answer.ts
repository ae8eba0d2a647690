import { type Button, type ForwardResponseFrame, WireError } from "@phonework/protocol";

// What a node answered to a forwarded message, as `forward()` resolves with it: the text, or the
// failure the node reported (through its outbox too, so just as durable), and the delivery id the
// router acknowledges once the chat has shown it.

export type Answer =
  | { ok: true; text: string; buttons?: Button[][] }
  | { ok: false; error: WireError; buttons?: undefined };

export interface NodeAnswer {
  answer: Answer;
  deliveryId: string;
  /**
   * This delivery id was shown (or is being shown) already, as a late answer: the request was
   * forwarded again after a restart, the node answered it again under the same id. Nothing to show,
   * nothing to acknowledge.
   */
  alreadyShown?: true;
}

export function nodeAnswerOf(frame: ForwardResponseFrame, nodeId: string): NodeAnswer {
  const answer: Answer = frame.error
    ? { ok: false, error: new WireError(frame.error.code, frame.error.message, nodeId) }
    : { ok: true, text: frame.text, ...(frame.buttons ? { buttons: frame.buttons } : {}) };
  return { answer, deliveryId: frame.delivery_id };
}
