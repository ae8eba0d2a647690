import { randomUUID } from "node:crypto";
import type { Logger } from "@phonework/runtime";
import { z } from "zod";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { ChatMessage } from "../model/chat-message.ts";
import { trimToBudget } from "../model/context-window.ts";
import { JsonLinesAppender } from "./jsonl-appender.ts";
import { readJsonLines } from "./jsonl-file.ts";
import { takeLegacyHistory } from "./legacy-history.ts";
import { channelOf, type WorkspaceLayout } from "./workspace-layout.ts";

// What the model remembers of a chat: the channel's context.jsonl in the workspace's shared format, a
// `session` line and then one `message` line per message. The file is only ever appended to:
// trimming to HISTORY_MAX_TOKENS appends a `window` line saying where the model's window now
// starts, and /new-context appends a new `session` line, so nothing said is lost from disk.

export const SessionLine = z.object({
  type: z.literal("session"),
  id: z.string(),
  timestamp: z.string(),
  provider: z.string(),
  modelId: z.string(),
});
export const MessageLine = z.object({
  type: z.literal("message"),
  timestamp: z.string(),
  message: ChatMessage,
});
/** PhoneWork's addition to that format: the model sees messages from `start` on. */
export const WindowLine = z.object({
  type: z.literal("window"),
  timestamp: z.string(),
  start: z.number().int().nonnegative(),
});
const ContextLine = z.discriminatedUnion("type", [SessionLine, MessageLine, WindowLine]);

export interface ContextStore {
  /** The model's window of the chat's current context, oldest first. */
  load(owner: ChatOwner): ChatMessage[];
  append(owner: ChatOwner, messages: ChatMessage[]): void;
  /** Starts a fresh context, keeping the old one in the file; how many messages the model no longer sees. */
  reset(owner: ChatOwner): number;
}

export interface ChannelContextsOptions {
  layout: WorkspaceLayout;
  maxTokens: number;
  /** Named in each `session` line. */
  modelId: string;
  /** Where per-user history files from before the workspace are (taken over once). */
  legacyDir: string;
  now: () => number;
  logger: Logger;
}

/** The current context as read: all its messages, and where the model's window starts. */
interface Context {
  messages: ChatMessage[];
  start: number;
  /** Whether the file has a session line for it yet (one is written before the first message). */
  begun: boolean;
}

export class ChannelContexts implements ContextStore {
  private readonly cache = new Map<string, Context>();
  /** Appended to at every turn: the busiest chats' files stay open (jsonl-appender.ts). */
  private readonly files = new JsonLinesAppender();

  constructor(private readonly options: ChannelContextsOptions) {}

  /** Closes the open files (the host is stopping); a line written after this still lands. */
  close(): void {
    this.files.close();
  }

  load(owner: ChatOwner): ChatMessage[] {
    const context = this.open(owner);
    // Trimmed again in case HISTORY_MAX_TOKENS was lowered since the window line was written.
    return trimToBudget(context.messages.slice(context.start), this.options.maxTokens);
  }

  append(owner: ChatOwner, messages: ChatMessage[]): void {
    if (messages.length === 0) return;
    const path = this.pathOf(owner);
    const context = this.open(owner);
    const lines: unknown[] = context.begun ? [] : [this.sessionLine()];
    lines.push(...messages.map((message) => ({ type: "message", timestamp: this.stamp(), message })));
    context.begun = true;
    context.messages.push(...messages);
    const window = trimToBudget(context.messages.slice(context.start), this.options.maxTokens);
    const start = context.messages.length - window.length;
    if (start > context.start) {
      context.start = start;
      lines.push({ type: "window", timestamp: this.stamp(), start });
    }
    this.files.append(path, lines);
  }

  reset(owner: ChatOwner): number {
    const context = this.open(owner);
    const dropped = context.messages.length - context.start;
    this.files.append(this.pathOf(owner), [this.sessionLine()]);
    this.cache.set(this.pathOf(owner), { messages: [], start: 0, begun: true });
    return dropped;
  }

  private pathOf(owner: ChatOwner): string {
    return this.options.layout.channelContext(channelOf(owner.platform, owner.chatId));
  }

  private open(owner: ChatOwner): Context {
    const path = this.pathOf(owner);
    const cached = this.cache.get(path);
    if (cached) return cached;
    const read = this.read(path);
    if (read) {
      this.cache.set(path, read);
      return read;
    }
    const fresh: Context = { messages: [], start: 0, begun: false };
    this.cache.set(path, fresh);
    this.takeOver(owner, fresh);
    return fresh;
  }

  /** The file's current context; undefined when there is no file yet. */
  private read(path: string): Context | undefined {
    const { values, unreadable } = readJsonLines(path);
    if (values.length === 0 && unreadable === 0) return undefined;
    let context: Context = { messages: [], start: 0, begun: false };
    let invalid = unreadable;
    for (const value of values) {
      const line = ContextLine.safeParse(value);
      if (!line.success) invalid++;
      else if (line.data.type === "session") context = { messages: [], start: 0, begun: true };
      else if (line.data.type === "message") context.messages.push(line.data.message);
      else context.start = Math.min(line.data.start, context.messages.length);
    }
    if (invalid > 0)
      this.options.logger.warn({ path, lines: invalid }, "context lines skipped: not readable");
    return context;
  }

  /** Fills a new file with the user's conversation from before the workspace, if there is one. */
  private takeOver(owner: ChatOwner, context: Context): void {
    const legacy = takeLegacyHistory(this.options.legacyDir, owner.userId);
    if (legacy === undefined) return;
    const path = this.pathOf(owner);
    this.options.logger.info(
      { userId: owner.userId, path, messages: legacy.length },
      "history moved into the chat's context",
    );
    this.files.append(path, [this.sessionLine()]);
    context.begun = true;
    this.append(owner, legacy);
  }

  private sessionLine() {
    return {
      type: "session",
      id: randomUUID(),
      timestamp: this.stamp(),
      provider: "openai-compatible",
      modelId: this.options.modelId,
    };
  }

  private stamp(): string {
    return new Date(this.options.now()).toISOString();
  }
}
