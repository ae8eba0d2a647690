import type { REST } from "@discordjs/rest";
import type { Destination } from "../platform-adapter.ts";
import { toPlatformError } from "./discord-error.ts";
import { snowflake } from "./outgoing.ts";

// Where a send goes on Discord: a known channel, or else the user's DM channel (opened once with
// POST /users/@me/channels, then remembered); whether a channel is a DM (learned from what users
// send, else asked once); and the thread under a main message. A thread started from a message
// has that message's id, so "the thread of message M" is channel M once it exists.

const DM_CHANNEL = 1;
/** Remembered entries per map; the oldest go first (a Map keeps insertion order). */
const MAX_ENTRIES = 5_000;
/** Discord's answer when the message already has a thread. */
const THREAD_ALREADY_CREATED = 160004;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
  return value;
}

export type ChannelKind = "private" | "group";

export class Channels {
  private readonly dms = new Map<string, Promise<string>>();
  private readonly kinds = new Map<string, ChannelKind>();
  /** Main message id → the channel its details go to (its thread, or its own channel as replies). */
  private readonly threads = new Map<string, Promise<{ channelId: string; replyTo?: string }>>();

  constructor(private readonly rest: REST) {}

  /** What an incoming message told us about its channel. */
  learn(channelId: string, kind: ChannelKind): void {
    remember(this.kinds, channelId, kind);
  }

  /** The channel id to send to: the chat's, or the user's DM channel. */
  async channelOf(to: Destination): Promise<string> {
    if (to.chatId) return snowflake(to.chatId, "channel");
    const userId = snowflake(to.userId, "user");
    const known = this.dms.get(userId);
    if (known) return known;
    const opening = this.openDm(userId);
    remember(this.dms, userId, opening);
    opening.catch(() => this.dms.delete(userId));
    return opening;
  }

  /**
   * Where the details of main message `messageId` in `channelId` go: in a guild channel, the thread
   * started from it (created on first use); in a DM (no threads there), replies to it.
   */
  detailsOf(channelId: string, messageId: string): Promise<{ channelId: string; replyTo?: string }> {
    const known = this.threads.get(messageId);
    if (known) return known;
    const finding = this.startThread(channelId, snowflake(messageId, "message"));
    remember(this.threads, messageId, finding);
    finding.catch(() => this.threads.delete(messageId));
    return finding;
  }

  private async startThread(channelId: string, messageId: string) {
    if ((await this.kindOf(channelId)) === "private") return { channelId, replyTo: messageId };
    try {
      await this.rest.post(`/channels/${channelId}/messages/${messageId}/threads`, {
        body: { name: "Details", auto_archive_duration: 1440 },
      });
    } catch (error) {
      const failure = toPlatformError(error);
      if (failure.details.code !== THREAD_ALREADY_CREATED) throw failure;
    }
    return { channelId: messageId };
  }

  private async kindOf(channelId: string): Promise<ChannelKind> {
    const known = this.kinds.get(channelId);
    if (known) return known;
    try {
      const channel = (await this.rest.get(`/channels/${channelId}`)) as { type?: number };
      return remember(this.kinds, channelId, channel.type === DM_CHANNEL ? "private" : "group");
    } catch (error) {
      throw toPlatformError(error);
    }
  }

  private async openDm(userId: string): Promise<string> {
    try {
      const channel = (await this.rest.post("/users/@me/channels", { body: { recipient_id: userId } })) as {
        id: string;
      };
      remember(this.kinds, channel.id, "private");
      return channel.id;
    } catch (error) {
      throw toPlatformError(error);
    }
  }
}
