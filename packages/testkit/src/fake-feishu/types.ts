import type { FeishuFault } from "./faults.ts";
import type { PushOptions, WsAck, WsClientConfig } from "./long-connection.ts";
import type { Upload } from "./uploads.ts";
import type { WebhookOptions, WebhookRequest, WebhookResponse } from "./webhook-driver.ts";

export type { FeishuFault, PushOptions, Upload, WsAck, WsClientConfig };

/** One version of a card: as sent, as patched, or as a button press's callback answer set it. */
export interface CardVersion {
  message_id: string;
  via: "send" | "patch" | "callback";
  content: MessageContent;
}

export interface CardButton {
  label: string;
  /** The callback value the button carries. */
  value: unknown;
}

/** What Feishu made of a callback's answer. */
export interface CardAnswer {
  messageId: string;
  toast?: { type?: string; content?: string };
  /** The card the answer put in place, when it carried a valid one. */
  card?: MessageContent;
  /** Why the answer's card was not taken. */
  refused?: string;
}

/** A press of the button labelled `label` on a card the bot sent, by `openId`. */
export interface CardPressInput {
  openId: string;
  messageId: string;
  label: string;
  eventId?: string;
  /** The verification token in the callback's header (default: the fake's default). */
  token?: string;
}

export type MessageContent = Record<string, unknown>;

/** A message the bot sent (create or reply). A reply records its chat as receive_id/chat_id. */
export interface SentMessage {
  message_id: string;
  chat_id: string;
  receive_id: string;
  receive_id_type: string;
  msg_type: string;
  content: MessageContent;
  uuid?: string;
  reply_to?: string;
  reply_in_thread?: boolean;
}

/** A message as the chat shows it now (after patches/updates). */
export interface StoredMessage {
  message_id: string;
  chat_id: string;
  msg_type: string;
  content: MessageContent;
  root_id: string;
  parent_id: string;
  sender: "app" | "user";
  edits: number;
  /** Recalled (withdrawn) by its sender: it shows as deleted, and nothing can reply to it. */
  recalled?: boolean;
  create_time: string;
  update_time: string;
}

export interface FakeFeishuOptions {
  /** Lifetime of issued tenant_access_tokens in seconds (default 7200). The SDK refreshes 180 s early. */
  tokenTtlS?: number;
  /** ClientConfig handed to the long connection (defaults reconnect at once, then every second). */
  wsClientConfig?: Partial<WsClientConfig>;
}

/** One HTTP request the fake received, whatever it answered. */
export interface FeishuCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON; for multipart, text fields as strings and files as { filename, contentType, size }. */
  body: unknown;
}

export interface FakeFeishu {
  /** Base URL: pass as `domain` to lark.Client / lark.WSClient. */
  url: string;
  /** "cli_" + 16 hex, as WSClient.start() insists on. */
  appId: string;
  appSecret: string;
  /** The bot's own open_id (for @mention detection). */
  botOpenId: string;
  tenantKey: string;
  calls: FeishuCall[];
  /** Messages the bot sent (create or reply), in order, with parsed content; uuid-deduplicated sends are not repeated. */
  sent(): SentMessage[];
  /** message.patch (card edits), in order. */
  patches(): Array<{ message_id: string; content: unknown }>;
  /** message.update (text/post edits), in order. */
  updates(): Array<{ message_id: string; msg_type: string; content: unknown }>;
  /** A message as it shows now (after patches and updates), bot's or a user's the fake delivered. */
  message(messageId: string): StoredMessage | undefined;
  /** Recalls a message as its sender would: replies to it are refused from then on (code 230011). */
  recall(messageId: string): void;
  uploads(): Upload[];
  /** How many tenant_access_token fetches reached the fake. */
  tokenRequests(): number;
  /** Every tenant token issued so far. */
  issuedTokens(): string[];
  /** Long connections ever accepted. */
  wsConnectionCount(): number;
  /** Resolves once `count` connections were accepted (default 1) and the latest is open and pinging. */
  waitForWsConnection(count?: number): Promise<void>;
  /** Sends an event over the latest long connection (waiting up to 5 s for one); resolves with the client's ack payload, rejects after 10 s without one. */
  pushEvent(event: object, options?: PushOptions): Promise<{ code: number; data?: string }>;
  /** Every ack the client sent, with its frame headers (biz_rt…). */
  wsAcks(): WsAck[];
  /** Drops the long connection abruptly (no close frame); the SDK must reconnect. */
  dropWs(): void;
  /** Posts an event to the app's request URL the way Feishu does (signed; encrypted with encryptKey). */
  postWebhook(url: string, body: object, options?: WebhookOptions): Promise<WebhookResponse>;
  /** The request postWebhook would send, to send (and resend) with sendWebhookRequest. */
  webhookRequest(body: object, options?: WebhookOptions): WebhookRequest;
  /** The next `times` (default 1) calls whose path matches answer with this fault instead. */
  failNext(pathPattern: RegExp, fault: FeishuFault): void;
  /** Learns a user's message as Feishu keeps it, without delivering it (for calls made about it). */
  rememberEvent(event: object): void;
  /** Registers an image a user sends; put the key in a message event (`resourceKey`). */
  userImage(data: Buffer, contentType?: string): string;
  /** Registers a file (a document, audio, a video) a user sends; put the key in a message event. */
  userFile(data: Buffer, options?: { name?: string; contentType?: string }): string;
  /** Every message resource download asked for, with the HTTP status answered. */
  downloads(): Array<{ messageId: string; key: string; type: string; status: number }>;
  /** The callback buttons on a message's card as it shows now. */
  cardButtons(messageId: string): CardButton[];
  /** Every version of the cards (of one message): sent, patched, set by a callback's answer. */
  cardVersions(messageId?: string): CardVersion[];
  /** Every callback answer, in order: its toast, and the card it put in place (or why not). */
  cardAnswers(): CardAnswer[];
  /** The card.action.trigger callback a press sends (to forge, sign or replay by hand). */
  buttonPressEvent(input: CardPressInput): object;
  /** Presses a button over the long connection; resolves with what Feishu made of the answer. */
  pressButton(input: CardPressInput): Promise<CardAnswer>;
  /** Posts a press to the app's request URL (signed like events); the answer applied when 200. */
  postButtonPress(
    url: string,
    input: CardPressInput,
    options?: WebhookOptions,
  ): Promise<WebhookResponse & { answer?: CardAnswer }>;
  close(): Promise<void>;
}
