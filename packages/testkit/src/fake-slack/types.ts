// What a test sees of the fake Slack: its options, the people and chats it makes, what the bot sent.

export interface FakeSlackOptions {
  /** An envelope not acknowledged within this is sent again, retry_attempt + 1 (Slack: ~3 s). */
  ackTimeoutMs?: number;
  /** Redeliveries of one envelope before Slack gives up (Slack: 3). */
  maxRetries?: number;
  /** The app's Signing Secret, for HTTP mode. */
  signingSecret?: string;
}

export interface SlackUser {
  id: string;
  name: string;
}

export interface SlackFileInfo {
  id: string;
  name: string;
  mimetype: string;
  size: number;
  url_private_download: string;
  url_private: string;
}

/** One message in a conversation, as it stands now (after edits). */
export interface SlackMessage {
  ts: string;
  channel: string;
  threadTs?: string;
  /** "bot", or the user's id. */
  from: string;
  text: string;
  blocks?: unknown[];
  files?: Array<{ id: string; name: string; size: number }>;
  edits: number;
}

export interface UploadedFile {
  id: string;
  name: string;
  data: Buffer;
  channel?: string;
  threadTs?: string;
}

export interface ApiCall {
  method: string;
  params: Record<string, unknown>;
  /** HTTP status the fake answered with. */
  status: number;
  /** Slack's `error` when ok was false. */
  error?: string;
}

export interface Envelope {
  envelopeId: string;
  type: "events_api" | "slash_commands" | "interactive";
  retryAttempt: number;
  /** The event's id (events_api): the same on every redelivery. */
  eventId?: string;
  payload: Record<string, unknown>;
  sentAt?: number;
  ackedAt?: number;
}

export interface SlackFault {
  /** 429 (with Retry-After), 5xx; absent: HTTP 200 with `error`. */
  status?: number;
  /** Seconds, for a 429 (default 1). */
  retryAfter?: number;
  /** Slack's error code for an ok:false answer (default for 200: "internal_error"). */
  error?: string;
  /** How many calls it applies to (default 1). */
  times?: number;
}

export interface SignOptions {
  /** Sign with this instead of the app's secret (a forger). */
  secret?: string;
  /** Unix seconds to sign with (default now). */
  timestamp?: number;
  /** Leave the signature headers out. */
  unsigned?: boolean;
}

/** A request as Slack would post it: replayable as it is. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}
