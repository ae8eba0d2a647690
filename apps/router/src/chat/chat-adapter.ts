// The one interface every chat platform implements (terminal now; Feishu, Telegram later).
// Everything above it sees platform-neutral messages and addresses.

export interface IncomingMessage {
  platform: string;
  /** The platform's id for this message (used to drop redeliveries). */
  messageId: string;
  chatId: string;
  userId: string;
  userName?: string;
  chatType: "private" | "group";
  text: string;
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
   * the platform has replies (Feishu), quoted where answers could otherwise be mistaken (the
   * terminal). Set for answers only, never for progress or notices.
   */
  replyTo?: string;
}

export interface OutgoingFile {
  name: string;
  data: Buffer;
  mimeType?: string;
}

export type MessageListener = (message: IncomingMessage) => void;

/** An HTTP endpoint a platform delivers events to (webhooks); served by the router's HTTP server. */
export interface WebhookEndpoint {
  path: string;
  handle(request: {
    headers: Record<string, string | string[] | undefined>;
    rawBody: string;
  }): Promise<{ status: number; body: unknown }>;
}

export interface ChatAdapter {
  readonly platform: string;
  start(onMessage: MessageListener): Promise<void>;
  stop(): Promise<void>;
  sendText(to: ChatAddress, text: string, options?: SendOptions): Promise<SentMessage>;
  /** Replaces the text of a message sent earlier (progress updates). */
  editText(to: ChatAddress, messageId: string, text: string): Promise<void>;
  sendFile(to: ChatAddress, file: OutgoingFile): Promise<SentMessage>;
  /** Set by platforms that receive events over HTTP. */
  readonly webhook?: WebhookEndpoint;
  /** The connection's state, shown in /health. */
  status?(): Record<string, unknown>;
}
