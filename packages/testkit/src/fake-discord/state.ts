// What the fake Discord holds: users, channels (DMs, server channels, threads started from a
// message), every message with its edits, interactions and their answers, uploaded and attached
// files, and the application's commands. Ids are snowflake-like decimal strings, increasing.

export interface FakeUser {
  id: string;
  username: string;
  global_name?: string;
  bot?: boolean;
}

export interface FakeChannel {
  id: string;
  /** 0: a server text channel; 1: a DM; 11: a thread. */
  type: 0 | 1 | 11;
  guild_id?: string;
  /** A DM's user. */
  recipient?: FakeUser;
  /** A thread's channel. */
  parent_id?: string;
  name?: string;
}

export interface FakeFile {
  filename: string;
  contentType?: string;
  data: Buffer;
}

export interface MessageVersion {
  content: string;
  components?: unknown[];
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  author: FakeUser;
  content: string;
  components: unknown[];
  attachments: Array<{ id: string; filename: string; size: number; url: string; content_type?: string }>;
  message_reference?: { message_id: string };
  flags: number;
  nonce?: string;
  /** Earlier versions replaced by edits, oldest first. */
  history: MessageVersion[];
  deleted: boolean;
  /** Sent as an interaction's answer (its placeholder, a follow-up). */
  interaction?: string;
  /** Only the presser sees it. */
  ephemeral: boolean;
  /** Fake clock time it was created (ms). */
  at: number;
}

export interface FakeInteraction {
  id: string;
  token: string;
  type: 2 | 3;
  channel_id: string;
  user: FakeUser;
  /** When it was dispatched (ms, the fake's clock), and each callback's type with when it came. */
  at: number;
  callbacks: Array<{ type: number; at: number; data?: unknown }>;
  /** The message its callback made (type 4 or 5), edited through …/messages/@original. */
  original?: string;
  followUps: string[];
}

export class DiscordState {
  private next = 1_300_000_000_000_000_000n;
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  readonly files = new Map<string, FakeFile>();
  commands: unknown[] = [];
  /** Users whose DMs are closed to the bot: sends there get 50007. */
  readonly closedDms = new Set<string>();

  constructor(
    readonly bot: FakeUser,
    readonly applicationId: string,
    readonly now: () => number,
  ) {
    this.users.set(bot.id, bot);
  }

  id(): string {
    this.next += 1n + BigInt(Math.floor(Math.random() * 1000));
    return this.next.toString();
  }

  dmOf(user: FakeUser): FakeChannel {
    for (const channel of this.channels.values())
      if (channel.type === 1 && channel.recipient?.id === user.id) return channel;
    const channel: FakeChannel = { id: this.id(), type: 1, recipient: user };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Messages of a channel, in order. */
  messagesOf(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((message) => message.channel_id === channelId);
  }

  addMessage(
    fields: Omit<FakeMessage, "id" | "history" | "deleted" | "at" | "ephemeral"> & { ephemeral?: boolean },
  ) {
    const message: FakeMessage = {
      ...fields,
      id: this.id(),
      history: [],
      deleted: false,
      at: this.now(),
      ephemeral: fields.ephemeral ?? false,
    };
    this.messages.set(message.id, message);
    return message;
  }
}
