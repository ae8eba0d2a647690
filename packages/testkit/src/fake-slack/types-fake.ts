import type { MessageInput, PressInput, SlashInput } from "./payloads.ts";
import type {
  ApiCall,
  Envelope,
  SignedRequest,
  SignOptions,
  SlackFault,
  SlackFileInfo,
  SlackMessage,
  SlackUser,
  UploadedFile,
} from "./types.ts";

export type { FakeSlackOptions } from "./types.ts";

/** A message for the bot, in the user's DM unless `channel` says otherwise. */
export type UserMessage = Omit<MessageInput, "channel"> & { channel?: string };

/** The fake workspace as a test drives and reads it. */
export interface FakeSlack {
  /** http://127.0.0.1:<port> */
  url: string;
  /** What SLACK_API_URL is set to: `<url>/api/`. */
  apiUrl: string;
  botToken: string;
  appToken: string;
  signingSecret: string;
  teamId: string;
  botUserId: string;

  user(input?: { id?: string; name?: string }): SlackUser;
  /** The user's DM channel with the bot. */
  dm(user: SlackUser): string;
  /** A new public channel the bot is in. */
  channel(): string;
  /** A file a user shares: downloadable with the bot token from its url_private_download. */
  shareFile(input: { name: string; data: Buffer; mimetype?: string }): SlackFileInfo;

  /** Socket Mode: an event_callback envelope (queued until a socket is open). */
  sendMessage(input: UserMessage): {
    eventId: string;
    ts: string;
    channel: string;
    envelopeId: string;
    body: Record<string, unknown>;
  };
  sendSlashCommand(input: SlashInput): { payload: Record<string, string>; envelopeId: string };
  pressButton(input: PressInput): { payload: Record<string, unknown>; envelopeId: string };

  /** HTTP mode: signed (or forged, with `sign`) requests to post to the app, and the poster. */
  http: {
    eventRequest(
      input: UserMessage,
      sign?: SignOptions,
    ): { eventId: string; ts: string; channel: string; request: SignedRequest };
    slashRequest(input: SlashInput, sign?: SignOptions): SignedRequest;
    pressRequest(input: PressInput, sign?: SignOptions): SignedRequest;
    jsonRequest(body: unknown, sign?: SignOptions): SignedRequest;
    post(url: string, request: SignedRequest): Promise<{ status: number; body: string }>;
  };

  socketConnections(): number;
  /** Sockets opened so far (reconnects count). */
  socketConnectionsOpened(): number;
  waitForSocket(timeoutMs?: number): Promise<void>;
  /** Closes the app's sockets as Slack does when it recycles them. */
  disconnectSockets(): void;
  /** The envelope's event sent again (retry_attempt + 1, same event_id), as after a late ack. */
  redeliver(envelopeId: string): Envelope;
  /** Every envelope sent, redeliveries included (same eventId, retryAttempt + 1). */
  envelopes(): Envelope[];
  isAcked(envelopeId: string): boolean;
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<void>;

  calls(): ApiCall[];
  callsOf(method: string): ApiCall[];
  waitForCall(method: string, predicate?: (call: ApiCall) => boolean, timeoutMs?: number): Promise<ApiCall>;
  /** A conversation's messages as they stand (the bot's edits applied). */
  messages(channel: string): SlackMessage[];
  botMessages(channel: string): SlackMessage[];
  waitForBot(channel: string, pattern: RegExp, timeoutMs?: number): Promise<SlackMessage>;
  /** Files the bot uploaded (complete ones). */
  uploads(): UploadedFile[];
  /** chat.postEphemeral notes (a button press's short answer). */
  ephemerals(): Array<{ channel: string; user: string; text: string }>;

  /** The next `times` calls of `method` answer with the fault. */
  failNext(method: string, fault: SlackFault): void;
  close(): Promise<void>;
}
