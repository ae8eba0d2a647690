// What a chat platform implements: one adapter translates between its platform and these types.
// Everything else — access control, dedupe, storing before acknowledging, splitting, markdown,
// the per-chat send queue with retries, progress edits, buttons — is the shared chat layer's,
// written once. Ids here are the platform's own (unqualified); the shared layer qualifies them
// with the adapter's name (`telegram:123`) before anything else sees them.

/** The markdown the platform renders; the shared layer converts the answers' markdown to it. */
export type MarkdownDialect =
  /** As written: the terminal, and platforms that show text verbatim. */
  | "plain"
  /** Telegram's HTML parse mode: <b>, <i>, <code>, <pre>, <a>; everything else escaped. */
  | "telegram-html"
  /** Feishu card markdown (lark_md): CommonMark-like, shown as written. */
  | "feishu-md"
  /** Slack's mrkdwn: *bold*, _italic_, ~strike~, `code`, ``` blocks, <url|text>; &, <, > escaped. */
  | "slack-mrkdwn"
  /** Discord's markdown: CommonMark-like, shown as written but for mentions and what it reads differently. */
  | "discord-md";

export interface Capabilities {
  /** Longest text one message may carry, in UTF-16 code units after rendering. */
  maxMessageLength: number;
  /** Messages can be edited in place (progress); without it, new lines go out as new messages. */
  canEdit: boolean;
  /** Inline buttons; without them the text's own instructions (e.g. "/approve 3") are the way. */
  canSendButtons: boolean;
  /** A message can be sent as a reply to another. */
  canReply: boolean;
  /**
   * A reply is a place, not a quote (Slack: an answer to a message in a thread goes into that
   * thread): every piece of a split answer is sent as a reply. Elsewhere only the first piece quotes
   * the message it answers, so a long answer does not quote it again and again.
   */
  replyIsPlace?: boolean;
  markdown: MarkdownDialect;
  /**
   * Where a turn's details (tool calls, their results, its usage) can go under the turn's main
   * message: a thread of its own (Slack, Discord channels), replies to it (Telegram, Feishu), or
   * nowhere (the terminal): then they go inline or are left out. See PlatformSendOptions.thread.
   */
  threads: "threads" | "replies" | "none";
  /** Files, photos and documents users send reach the host. */
  filesIn: boolean;
  /**
   * Voice notes and audio users send are received: a voice note (no text, one audio file) is
   * transcribed on the router when STT_BASE_URL is set (voice/), other audio is handed on as a file.
   */
  voiceIn: boolean;
  /**
   * Photos and image files users send reach the host, where the assistant's model sees them as
   * images (when it reads images) and coding sessions get them as their CLI takes them.
   */
  imagesIn: boolean;
  maxFileBytes: number;
  maxImageBytes: number;
}

/** A conversation on the platform. */
export interface ChannelRef {
  id: string;
  type: "private" | "group";
}

export interface Sender {
  id: string;
  name?: string;
  isBot: boolean;
}

/** A file that came with a message; fetched with the adapter's `download` once the message is handled. */
export interface AttachmentRef {
  name: string;
  mimeType?: string;
  size?: number;
  /** Seconds of audio, as the platform declares it (a voice note's length). */
  durationS?: number;
  /** The platform's handle for the file (Telegram file_id, Feishu file_key). */
  ref: string;
}

/** An incoming message, as the platform sent it. */
export interface ChannelMessage {
  /** The platform's id of this message (unique in its channel). */
  id: string;
  channel: ChannelRef;
  sender: Sender;
  text: string;
  attachments: AttachmentRef[];
  /** The bot was mentioned (or replied to) — groups are answered only then. */
  isMention: boolean;
  /** The message this one replies to. */
  replyTo?: string;
  /** Further ids whose redelivery means this same event (Feishu's event_id, Telegram's update_id). */
  dedupeKeys?: string[];
  /** Set when the platform's message type cannot be read (a sticker…): the sender is told, nothing is handled. */
  unsupported?: string;
}

/** A press of a button the shared layer sent; `data` is the opaque id it gave the button. */
export interface ButtonPress {
  channel: ChannelRef;
  sender: Sender;
  data: string;
  /** The message the button was on. */
  messageId?: string;
}

/** What the adapter calls when the platform delivers something. */
export interface PlatformEvents {
  /**
   * Resolves once the message is stored durably (or recognised as a redelivery): only then may
   * the adapter acknowledge it to the platform. Rejects when it could not be stored: the adapter
   * must then leave it unacknowledged so the platform delivers it again.
   */
  message(message: ChannelMessage): Promise<void>;
  /** A button press; resolves with the short text the presser sees (e.g. "Already answered"). */
  button(press: ButtonPress): Promise<string>;
}

/** Where to send: a known chat, or else the user's private chat. Platform ids. */
export interface Destination {
  chatId?: string;
  userId: string;
}

export interface OutgoingButton {
  label: string;
  /** Opaque id (at most 64 bytes) given back in ButtonPress.data. */
  data: string;
}

export interface PlatformSendOptions {
  /** The platform id of the message this answers, shown as a reply where the platform has replies. */
  replyTo?: string;
  /** Rows of inline buttons (only when `capabilities.canSendButtons`). */
  buttons?: OutgoingButton[][];
  /**
   * The platform id of a main message this one belongs under (a turn's details): in that
   * message's thread where the platform has threads, else as a reply to it. Only set when
   * `capabilities.threads` is not "none".
   */
  thread?: string;
  /** The same on every retry of one send, so a platform that dedupes sends it at most once. */
  idempotencyKey: string;
}

export interface OutgoingFile {
  name: string;
  data: Buffer;
  mimeType?: string;
  /**
   * OGG/Opus speech (a spoken answer): sent as a voice note where the platform has them (Telegram),
   * elsewhere as the audio file it is.
   */
  voice?: boolean;
}

/** An HTTP endpoint a platform delivers events to (webhooks); served by the router's HTTP server. */
export interface WebhookEndpoint {
  path: string;
  handle(request: {
    headers: Record<string, string | string[] | undefined>;
    rawBody: string;
  }): Promise<{ status: number; body: unknown }>;
}

export interface PlatformCommand {
  command: string;
  description: string;
}

export interface PlatformAdapter {
  /** The adapter's name from the config ("telegram", "feishu-work"): qualifies its ids. */
  readonly name: string;
  /** The platform ("telegram", "feishu", "terminal"…). */
  readonly type: string;
  /**
   * Another view of the users of the other adapters (the web console): its ids are already their
   * qualified ids and are taken as they are, and writing from it never moves where a user's notices go.
   */
  readonly companion?: boolean;
  readonly capabilities: Capabilities;
  start(events: PlatformEvents): Promise<void>;
  /** Stops receiving; sends may still be asked for until the router closes. */
  stop(): Promise<void>;
  /** `text` is already in the adapter's dialect and within its maximum length. */
  send(to: Destination, text: string, options: PlatformSendOptions): Promise<{ messageId: string }>;
  /** Replaces a sent message's text (and buttons). */
  edit(
    to: Destination,
    messageId: string,
    text: string,
    options?: { buttons?: OutgoingButton[][] },
  ): Promise<void>;
  /** The file is within the capability's size limits. */
  sendFile(
    to: Destination,
    file: OutgoingFile,
    options: { idempotencyKey: string },
  ): Promise<{ messageId: string }>;
  /** Fetches an attachment of a received message. */
  download?(attachment: AttachmentRef): Promise<Buffer>;
  react?(to: Destination, messageId: string, emoji: string): Promise<void>;
  /** Publishes the commands in the platform's command menu. */
  setCommands?(commands: PlatformCommand[]): Promise<void>;
  readonly webhook?: WebhookEndpoint;
  /** The connection's state, shown in /health. */
  status?(): Record<string, unknown>;
}

export type PlatformErrorKind =
  /** Too many requests: retry after `retryAfterMs` (the platform's own hint). */
  | "rate_limited"
  /** Network trouble or a server error: retry with backoff. */
  | "transient"
  /** Refused for good (bad chat, blocked by the user…): do not retry. */
  | "permanent"
  /** An edit that changes nothing (Telegram's "message is not modified"): success. */
  | "not_modified";

/** The one error adapters throw, so the shared send queue knows whether and when to retry. */
export class PlatformError extends Error {
  override readonly name = "PlatformError";
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    /** `logId`: the platform's id for the failed request, to quote to its support. */
    readonly details: { retryAfterMs?: number; code?: number | string; status?: number; logId?: string } = {},
  ) {
    super(message);
  }
}
