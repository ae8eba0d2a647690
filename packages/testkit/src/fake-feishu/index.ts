export { cardProblem, MAX_CARD_BYTES, MAX_CARD_ELEMENTS } from "./card-schema.ts";
export { type FeishuConversation, feishuConversation } from "./conversation.ts";
export type { CardActionInput, MessageEventInput, PostElement } from "./events.ts";
export {
  cardActionEvent,
  DEFAULT_VERIFICATION_TOKEN,
  FAKE_TENANT_KEY,
  messageEvent,
  urlVerificationEvent,
} from "./events.ts";
export {
  decodeFrame as decodeFeishuFrame,
  encodeFrame as encodeFeishuFrame,
  type Frame as FeishuFrame,
  FrameMethod as FeishuFrameMethod,
} from "./frame-codec.ts";
export { startFakeFeishu } from "./server.ts";
export type * from "./types.ts";
export {
  encryptEvent,
  sendWebhookRequest,
  signWebhook,
  type WebhookOptions,
  type WebhookRequest,
  type WebhookResponse,
} from "./webhook-driver.ts";
