import type { ButtonSpec } from "./button-store.ts";

// The platform-neutral side of the chat layer: what the dispatcher, commands and notices see.
// Ids here are qualified by adapter name (`telegram:123`, `feishu:ou_…`); `platform` is the
// adapter's name. Platform adapters themselves implement PlatformAdapter (platforms/platform-adapter.ts).

export interface IncomingAttachment {
  name: string;
  mimeType?: string;
  data: Buffer;
}

export interface IncomingMessage {
  /** The adapter's name. */
  platform: string;
  /** The platform's id for this message (answers reply to it). */
  messageId: string;
  chatId: string;
  userId: string;
  userName?: string;
  chatType: "private" | "group";
  text: string;
  attachments?: IncomingAttachment[];
  /**
   * Settles once the message is stored in router.db (rejects if it could not be). Handling starts
   * in the turn the message arrived, so its writes (the request's origin) join the store's commit;
   * nothing leaves for a node or the chat before this settles. Absent: stored already.
   */
  stored?: Promise<void>;
  /**
   * This stored message's own key, kept with it in router.db: its forward to a node is sent under
   * an id made from it and the node's id, the same when a restart handles the message again (its
   * "handled" mark was not committed yet), so the node runs it once. Absent: a fresh id per forward.
   */
  requestKey?: string;
}

/** Where to send: a chat if known, else the user's private chat. */
export interface ChatAddress {
  platform: string;
  userId: string;
  chatId?: string;
}

export interface SentMessage {
  messageId: string;
}

export interface SendOptions {
  /**
   * The id of the message this text answers (IncomingMessage.messageId): shown as a reply where
   * the platform has replies, quoted where answers could otherwise be mistaken (the terminal).
   * Set for answers only, never for progress or notices.
   */
  replyTo?: string;
  /** Rows of buttons, where the platform has them; each is a command the user could type. */
  buttons?: readonly (readonly ButtonSpec[])[];
  /**
   * The platform id of a main message this text belongs under (a turn's details): its thread, or a
   * reply to it, where the platform has either (capabilities.threads); elsewhere a plain message.
   */
  thread?: string;
}

/** What the router says in a chat: text (Markdown), and buttons where the platform has them. */
export interface ChatReply {
  text: string;
  buttons?: ButtonSpec[][];
}

export type { OutgoingFile, WebhookEndpoint } from "../platforms/platform-adapter.ts";
