import { createHash } from "node:crypto";
import { join } from "node:path";
import { ChatCache } from "./chat-cache.ts";

// Where a host's workspace keeps things: MEMORY.md, skills/, tools/, events/ and one directory per
// chat channel (channels/<adapter>/<chat>/ with MEMORY.md, log.jsonl, context.jsonl,
// attachments/, scratch/). Channel ids come from outside (a chat platform), so every path segment
// made from one is checked or encoded here, once: nothing from a chat can name a path outside.

/** A path segment as it is, when it is harmless; else a readable prefix and a hash. */
export function safeSegment(value: string): string {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/.test(value) && !value.includes("..")) return value;
  const readable = value.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 40);
  const hash = createHash("sha256").update(value).digest("hex").slice(0, 16);
  return `${readable}~${hash}`;
}

/** A chat channel: the adapter's name and the platform's chat id (unqualified). */
export interface Channel {
  adapter: string;
  chat: string;
}

/** `telegram:123` (a qualified chat id) or a bare chat id on `platform`. */
export function channelOf(platform: string, chatId: string): Channel {
  const prefix = `${platform}:`;
  return { adapter: platform, chat: chatId.startsWith(prefix) ? chatId.slice(prefix.length) : chatId };
}

/** The qualified id events and logs use: `<adapter>:<chat>`. */
export const channelId = (channel: Channel) => `${channel.adapter}:${channel.chat}`;

/** How many channels' directories are remembered (the path is worked out on every message). */
const REMEMBERED_CHANNELS = 256;

export class WorkspaceLayout {
  readonly channelsDir: string;
  /** Channel directories (worked out on every message); bounded, as chat ids come from outside. */
  private readonly channelDirs = new ChatCache<string>(REMEMBERED_CHANNELS);

  constructor(readonly root: string) {
    this.channelsDir = join(root, "channels");
  }

  get memoryFile(): string {
    return join(this.root, "MEMORY.md");
  }
  get skillsDir(): string {
    return join(this.root, "skills");
  }
  get toolsDir(): string {
    return join(this.root, "tools");
  }
  get eventsDir(): string {
    return join(this.root, "events");
  }

  channelDir(channel: Channel): string {
    let dir = this.channelDirs.get(channel.adapter, channel.chat);
    if (dir === undefined) {
      dir = join(this.channelsDir, safeSegment(channel.adapter), safeSegment(channel.chat));
      this.channelDirs.set(channel.adapter, channel.chat, dir);
    }
    return dir;
  }
  channelMemory(channel: Channel): string {
    return join(this.channelDir(channel), "MEMORY.md");
  }
  channelLog(channel: Channel): string {
    return join(this.channelDir(channel), "log.jsonl");
  }
  channelContext(channel: Channel): string {
    return join(this.channelDir(channel), "context.jsonl");
  }
  channelAttachments(channel: Channel): string {
    return join(this.channelDir(channel), "attachments");
  }
  channelScratch(channel: Channel): string {
    return join(this.channelDir(channel), "scratch");
  }
  channelSkills(channel: Channel): string {
    return join(this.channelDir(channel), "skills");
  }
}
