import { randomUUID } from "node:crypto";
import { CONSOLE_PLATFORM } from "../ids/qualified-id.ts";
import type {
  Capabilities,
  OutgoingButton,
  PlatformAdapter,
  PlatformEvents,
} from "../platforms/platform-adapter.ts";
import { PlatformError } from "../platforms/platform-adapter.ts";
import type { ConsoleFeed } from "./console-feed.ts";
import type { ConsoleButton } from "./console-frames.ts";
import { consoleFileType } from "./file-type.ts";

// The web console as one more chat platform: a page's messages and button presses enter the shared
// chat layer like any platform's, and what the router sends (answers, progress edits, buttons,
// files) goes to the user's open pages through the feed. The console acts for users of the other
// chats: its ids are their qualified ids (`telegram:123`), taken as they are (`companion`), and each
// user's console is one private chat, `console:<user id>`.

export const CONSOLE_ADAPTER = CONSOLE_PLATFORM;

export interface ConsoleAdapter extends PlatformAdapter {
  /** A message typed in one of `userId`'s pages; resolves once the chat layer stored it. */
  receive(userId: string, text: string): Promise<void>;
  /** A voice note recorded in one of `userId`'s pages; resolves once the chat layer stored it. */
  receiveVoice(userId: string, audio: Buffer, mimeType: string): Promise<void>;
  /** A button pressed in one of `userId`'s pages; resolves with the short answer the presser sees. */
  press(userId: string, data: string, messageId?: string): Promise<string>;
}

/** The console chat of a user, as the chat layer and hosts see it. */
export const consoleChatId = (userId: string): string => `${CONSOLE_ADAPTER}:${userId}`;

export const CONSOLE_CAPABILITIES: Capabilities = {
  maxMessageLength: 20_000,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "plain",
  threads: "none",
  filesIn: false,
  // The record button: the audio travels in the message itself (inline:<base64>), so it is stored
  // with it before the page is told it arrived, and survives a restart like typed text.
  voiceIn: true,
  imagesIn: false,
  // Sent base64 in one WebSocket message to each open page.
  maxFileBytes: 8 * 1024 * 1024,
  maxImageBytes: 8 * 1024 * 1024,
};

/** A recording's ref: its bytes themselves (bounded by the page frame), so nothing is kept elsewhere. */
const INLINE = "inline:";

const buttonsOf = (rows: OutgoingButton[][] | undefined): ConsoleButton[][] | undefined =>
  rows?.map((row) => row.map((button) => ({ label: button.label, data: button.data })));

export function createConsoleAdapter(feed: ConsoleFeed, now: () => number): ConsoleAdapter {
  let events: PlatformEvents | undefined;
  // Message ids stay unique across restarts: the chat layer drops an incoming id it stored before.
  const run = randomUUID().slice(0, 8);
  let next = 0;
  const newId = (prefix: string) => `${prefix}-${run}-${++next}`;
  const started = () => {
    if (!events) throw new PlatformError("transient", "the console is not started");
    return events;
  };

  return {
    name: CONSOLE_ADAPTER,
    type: CONSOLE_ADAPTER,
    companion: true,
    capabilities: CONSOLE_CAPABILITIES,
    async start(platformEvents) {
      events = platformEvents;
    },
    async stop() {
      events = undefined;
    },
    async send(to, text, options) {
      const id = newId("out");
      const buttons = buttonsOf(options.buttons);
      feed.publish(to.userId, {
        type: "message",
        message: {
          id,
          text,
          at: now(),
          ...(options.replyTo ? { reply_to: options.replyTo } : {}),
          ...(buttons ? { buttons } : {}),
        },
      });
      return { messageId: id };
    },
    async edit(to, messageId, text, options) {
      if (!feed.has(to.userId, messageId))
        throw new PlatformError("permanent", `no console message ${messageId} to edit`);
      const buttons = buttonsOf(options?.buttons);
      feed.publish(to.userId, { type: "edit", id: messageId, text, ...(buttons ? { buttons } : {}) });
    },
    async sendFile(to, file) {
      const id = newId("out");
      feed.publish(to.userId, {
        type: "message",
        message: {
          id,
          text: `📎 ${file.name}`,
          at: now(),
          file: {
            name: file.name,
            size: file.data.length,
            data_base64: file.data.toString("base64"),
            // Never the host's claim (text/html, image/svg+xml would run on the router's origin).
            mime_type: consoleFileType(file.data),
          },
        },
      });
      return { messageId: id };
    },
    async receive(userId, text) {
      const id = newId("in");
      // Every page of the user shows what was typed, in order with the answers.
      feed.publish(userId, { type: "message", message: { id, text, at: now(), mine: true } });
      await started().message({
        id,
        channel: { id: consoleChatId(userId), type: "private" },
        sender: { id: userId, isBot: false },
        text,
        attachments: [],
        isMention: true,
      });
    },
    async receiveVoice(userId, audio, mimeType) {
      const id = newId("in");
      feed.publish(userId, {
        type: "message",
        message: { id, text: "🎤 (voice note)", at: now(), mine: true },
      });
      const ext = /^audio\/(ogg|webm|mp4|wav|mpeg)/.exec(mimeType)?.[1] ?? "audio";
      await started().message({
        id,
        channel: { id: consoleChatId(userId), type: "private" },
        sender: { id: userId, isBot: false },
        text: "",
        attachments: [
          { name: `voice.${ext}`, mimeType, size: audio.length, ref: `${INLINE}${audio.toString("base64")}` },
        ],
        isMention: true,
      });
    },
    async download(attachment) {
      if (!attachment.ref.startsWith(INLINE)) throw new PlatformError("permanent", "not a console recording");
      return Buffer.from(attachment.ref.slice(INLINE.length), "base64");
    },
    press(userId, data, messageId) {
      return started().button({
        channel: { id: consoleChatId(userId), type: "private" },
        sender: { id: userId, isBot: false },
        data,
        ...(messageId ? { messageId } : {}),
      });
    },
    status() {
      return { platform: CONSOLE_ADAPTER, name: CONSOLE_ADAPTER, pages: feed.pageCount };
    },
  };
}
