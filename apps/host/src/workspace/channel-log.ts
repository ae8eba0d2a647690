import { relative } from "node:path";
import type { ForwardFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { z } from "zod";
import type { OutboxItem } from "../delivery/outbox.ts";
import { ChatCache } from "./chat-cache.ts";
import type { SavedAttachment } from "./inbox.ts";
import { ThreadedJsonLines } from "./jsonl-thread-writer.ts";
import { channelOf, type WorkspaceLayout } from "./workspace-layout.ts";

// A chat channel's log.jsonl: every message in it as this host received or sent it, in the
// workspace's shared format, append-only. The assistant can grep it (it is in the workspace); the model's
// own context is context.jsonl. Writing the log never stops a message: a failure is logged.
// Its lines are written at the end of each turn, or on a thread of their own once the host is busy
// (jsonl-thread-writer.ts, CHANNEL_LOG_THREAD_AT), handed over every COALESCE_MS (10 ms): a reader
// awaits `flushed()` first (which hands them over at once); a crash of the process can lose the
// lines of its last COALESCE_MS (longer only while a turn holds the event loop).

export const LogAttachment = z.object({
  filename: z.string(),
  /** Relative to the channel's directory (attachments/…); absent for files the host sent. */
  localPath: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
});
export type LogAttachment = z.infer<typeof LogAttachment>;

export const LogEntry = z.object({
  id: z.string(),
  ts: z.string(),
  sender: z.object({
    id: z.string(),
    username: z.string(),
    displayName: z.string().optional(),
    isBot: z.boolean(),
  }),
  text: z.string(),
  attachments: z.array(LogAttachment),
  isMention: z.boolean(),
});
export type LogEntry = z.infer<typeof LogEntry>;

export interface ChannelLogOptions {
  layout: WorkspaceLayout;
  /** This host, as the bot that speaks in the log. */
  nodeId: string;
  displayName: string;
  now: () => number;
  logger: Logger;
  /** File writes per second that start the log's thread (CHANNEL_LOG_THREAD_AT). */
  threadAt?: number;
}

/** How many chats' log paths are remembered (worked out twice per message otherwise). */
const REMEMBERED_PATHS = 256;

export class ChannelLog {
  /** Written on every message, on a thread of their own once busy; the busiest chats' logs stay open. */
  private readonly files: ThreadedJsonLines;
  /** The last line's time and its ISO text: lines written in the same millisecond share it. */
  private stamped = { ms: Number.NaN, iso: "" };
  /** Log paths by platform and chat id as the frame names them; bounded, as chat ids come from outside. */
  private readonly paths = new ChatCache<string>(REMEMBERED_PATHS);

  constructor(private readonly options: ChannelLogOptions) {
    const { logger } = options;
    this.files = new ThreadedJsonLines({
      logger,
      onFailure: (path, error) => logger.warn({ err: error, path }, "could not write the channel log"),
      ...(options.threadAt === undefined ? {} : { busyWritesPerSecond: options.threadAt }),
    });
  }

  /** Resolves once every line logged before this call is written: await it before reading a log. */
  flushed(): Promise<void> {
    return this.files.flushed();
  }

  /** Writes what is left and closes the open logs (the host is stopping); a line written after this still lands. */
  close(): Promise<void> {
    return this.files.close();
  }

  /** A user's message as it came: their text (not the lines the host adds) and the files saved. */
  received(request: ForwardFrame, saved: readonly SavedAttachment[]): void {
    const bare = request.user_id.slice(request.user_id.indexOf(":") + 1);
    this.write(request.platform, request.chat_id, {
      id: request.message_id ?? request.id,
      sender: { id: request.user_id, username: bare, isBot: false },
      text: request.text,
      attachments: saved.length === 0 ? [] : this.logAttachments(request, saved),
      // The router forwards only what is meant for the bot: a direct message, a mention, a reply to it.
      isMention: true,
    });
  }

  /** The host's answer to a message. */
  answered(request: ForwardFrame, text: string): void {
    this.write(request.platform, request.chat_id, this.fromBot(`${request.id}:reply`, text));
  }

  /** A message the host sends on its own (a reminder, a finished task, a file, a plan's report). */
  pushed(frame: OutboxItem, deliveryId: string): void {
    if (!("chat_id" in frame) || !frame.chat_id || !frame.platform) return; // no chat named: none to log in
    const { platform, chat_id } = frame;
    if (frame.type === "notify" && !frame.edit_key)
      this.write(platform, chat_id, this.fromBot(deliveryId, frame.text));
    else if (frame.type === "task_complete")
      this.write(
        platform,
        chat_id,
        this.fromBot(deliveryId, `${frame.ok ? "✅" : "❌"} ${frame.description}\n${frame.output}`.trimEnd()),
      );
    else if (frame.type === "send_file")
      this.write(platform, chat_id, {
        ...this.fromBot(deliveryId, ""),
        attachments: [{ filename: frame.name, ...(frame.mime_type ? { mimeType: frame.mime_type } : {}) }],
      });
  }

  private fromBot(id: string, text: string): Omit<LogEntry, "ts"> {
    const { nodeId, displayName } = this.options;
    return {
      id,
      sender: { id: nodeId, username: nodeId, displayName, isBot: true },
      text,
      attachments: [],
      isMention: false,
    };
  }

  /** The saved files, by their path in the chat's directory. */
  private logAttachments(request: ForwardFrame, saved: readonly SavedAttachment[]): LogAttachment[] {
    const dir = this.options.layout.channelDir(channelOf(request.platform, request.chat_id));
    return saved.map((file) => ({
      filename: file.name,
      localPath: relative(dir, file.path),
      size: file.bytes,
    }));
  }

  /** The chat's log.jsonl; remembered, as every message writes it twice. */
  private pathOf(platform: string, chatId: string): string {
    let path = this.paths.get(platform, chatId);
    if (path === undefined) {
      path = this.options.layout.channelLog(channelOf(platform, chatId));
      this.paths.set(platform, chatId, path);
    }
    return path;
  }

  private stamp(): string {
    const ms = this.options.now();
    if (ms !== this.stamped.ms) this.stamped = { ms, iso: new Date(ms).toISOString() };
    return this.stamped.iso;
  }

  private write(platform: string, chatId: string, entry: Omit<LogEntry, "ts">): void {
    // In the format's key order: id and ts first (built field by field: a rest copy per line showed in the profile).
    const line: LogEntry = {
      id: entry.id,
      ts: this.stamp(),
      sender: entry.sender,
      text: entry.text,
      attachments: entry.attachments,
      isMention: entry.isMention,
    };
    this.files.append(this.pathOf(platform, chatId), [line]);
  }
}
