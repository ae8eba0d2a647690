import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDatabase } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { ChatCache } from "./chat-cache.ts";
import { type Channel, channelOf, type WorkspaceLayout } from "./workspace-layout.ts";

// Which chat channels a user may look into in the workspace (per-channel isolation).
// A user has access to a channel once they have written in it: their own chat, or a group they
// are in. The file tools and the sandbox hide every other channel's directory (its log, context,
// memory and attachments), so nobody can read a chat they are not part of through the host.

export const CHANNEL_MEMBERS_MIGRATION = `
CREATE TABLE channel_members (
  user_id TEXT NOT NULL,
  adapter TEXT NOT NULL,
  chat TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  PRIMARY KEY (user_id, adapter, chat)
) WITHOUT ROWID;
`;

/** How many grants are remembered as done; past that all are forgotten, each written again when it comes back. */
const REMEMBERED_GRANTS = 4096;

export class ChannelAccess {
  /** Prepared once: `grant` runs for every message (compiling it each time showed in the profile). */
  private readonly insert;
  private readonly selectChannels;
  /**
   * Grants written by this process, as the users granted each chat: `grant` runs for every message
   * and the row is nearly always there already, so the write is skipped. Only writes are skipped:
   * who may see what is always read from the table. Nothing removes a row today; whatever comes to
   * remove one must drop it here too, or the user's next message would not grant it again.
   * Bounded, as the ids come from outside: past REMEMBERED_GRANTS users in all it starts again.
   */
  private readonly granted = new ChatCache<Set<string>>(REMEMBERED_GRANTS);
  private grants = 0;

  constructor(
    db: SqliteDatabase,
    private readonly layout: WorkspaceLayout,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare(
      "INSERT OR IGNORE INTO channel_members (user_id, adapter, chat, first_seen) VALUES (?, ?, ?, ?)",
    );
    this.selectChannels = db.prepare(
      "SELECT adapter, chat FROM channel_members WHERE user_id = ? ORDER BY adapter, chat",
    );
  }

  /** The user wrote in `channel`: they may see its directory from now on. */
  grant(userId: string, channel: Channel): void {
    let users = this.granted.get(channel.adapter, channel.chat);
    if (users?.has(userId)) return;
    this.insert.run(userId, channel.adapter, channel.chat, this.now());
    if (this.grants >= REMEMBERED_GRANTS) {
      this.granted.clear();
      this.grants = 0;
      users = undefined;
    }
    if (users === undefined) {
      users = new Set();
      this.granted.set(channel.adapter, channel.chat, users);
    }
    users.add(userId);
    this.grants++;
  }

  channelsOf(userId: string): Channel[] {
    return this.selectChannels.all(userId) as Channel[];
  }

  /**
   * The channel directories that exist now and this user may not see: everything under
   * channels/<adapter>/ except their channels and `current` (the chat asking); `isolated`, every
   * one but `current` (a subtask sent from another node sees none of the user's chats). Absolute paths.
   */
  hiddenDirs(userId: string, current: Channel, isolated = false): string[] {
    const shown = isolated ? [current] : [current, ...this.channelsOf(userId)];
    const visible = new Set(shown.map((c) => this.layout.channelDir(c)));
    const hidden: string[] = [];
    for (const adapter of listNames(this.layout.channelsDir)) {
      for (const chat of listNames(join(this.layout.channelsDir, adapter))) {
        const dir = join(this.layout.channelsDir, adapter, chat);
        if (!visible.has(dir)) hidden.push(dir);
      }
    }
    return hidden;
  }

  /** What a tool call may not see: every chat directory but those of the user it runs for. */
  hiddenFor(ctx: ChatOwner & { isolated?: boolean | undefined }): string[] {
    return this.hiddenDirs(ctx.userId, channelOf(ctx.platform, ctx.chatId), ctx.isolated);
  }
}

/** Names in a directory; none when it does not exist (no channel has written yet). */
function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
