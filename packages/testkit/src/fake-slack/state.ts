import type { IdSource } from "./ids.ts";
import type { ApiCall, SlackFileInfo, SlackMessage, SlackUser, UploadedFile } from "./types.ts";

// What the fake workspace holds: users, conversations and their messages, files, ephemeral notes.

export interface WorkspaceState {
  ids: IdSource;
  botToken: string;
  appToken: string;
  teamId: string;
  botUserId: string;
  botId: string;
  users: Map<string, SlackUser>;
  /** DM channel id by user id. */
  dms: Map<string, string>;
  channels: Set<string>;
  messages: SlackMessage[];
  /** Files users shared (downloadable with the bot token). */
  userFiles: Map<string, { info: SlackFileInfo; data: Buffer }>;
  /** Files the bot uploaded. */
  uploads: Map<string, UploadedFile>;
  ephemerals: Array<{ channel: string; user: string; text: string }>;
  calls: ApiCall[];
}

export function dmOf(state: WorkspaceState, userId: string): string {
  let channel = state.dms.get(userId);
  if (!channel) {
    channel = `D${userId.slice(1)}`;
    state.dms.set(userId, channel);
    state.channels.add(channel);
  }
  return channel;
}
