import { randomUUID } from "node:crypto";
import type {
  Capabilities,
  ChannelMessage,
  Destination,
  OutgoingButton,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
} from "../platform-adapter.ts";

// An in-process chat platform: messages are injected with `receive` and everything the router
// sends is kept in `sent`; buttons can be pressed. For embedding PhoneWork and for tests that
// need many users. Ids are the platform's own (unqualified), as on any platform.

export interface RecordedMessage {
  messageId: string;
  to: Destination;
  text: string;
  /** Every text this message had, in order (progress edits). */
  history: string[];
  file?: OutgoingFile;
  /** The incoming message it answers, when it is an answer. */
  replyTo?: string;
  /** The main message it was sent under (a turn's details). */
  thread?: string;
  buttons?: OutgoingButton[][];
}

export interface MemoryChatAdapter extends PlatformAdapter {
  readonly sent: RecordedMessage[];
  /** Delivers a message; resolves once the shared layer stored it. */
  receive(
    message: Partial<Omit<ChannelMessage, "sender" | "channel">> & {
      userId: string;
      text: string;
      chatId?: string;
      chatType?: "private" | "group";
    },
  ): Promise<void>;
  /** Presses the button with this label on the latest message that has one; resolves with the toast. */
  press(label: string, by?: string): Promise<string>;
  /** Texts sent to one user in the main chat, in order: a turn's details (sent under its main message, with `thread`) are only in `sent`. */
  textsFor(userId: string): string[];
}

const DEFAULT_CAPABILITIES: Capabilities = {
  maxMessageLength: 4000,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "plain",
  threads: "replies",
  filesIn: true,
  voiceIn: false,
  imagesIn: true,
  maxFileBytes: 30 * 1024 * 1024,
  maxImageBytes: 10 * 1024 * 1024,
};

export function createMemoryChatAdapter(
  name = "memory",
  capabilities: Partial<Capabilities> = {},
): MemoryChatAdapter {
  const sent: RecordedMessage[] = [];
  let events: PlatformEvents | undefined;
  let nextId = 0;
  // Incoming ids are unique across instances too, as a platform's are: the shared layer drops a
  // message whose id it stored before, and router.db outlives an adapter (a restart, a reopen).
  const instance = randomUUID().slice(0, 8);

  const record = (to: Destination, text: string, extra: Omit<Partial<RecordedMessage>, "to" | "text">) => {
    const messageId = `m${++nextId}`;
    sent.push({ messageId, to, text, history: [text], ...extra });
    return { messageId };
  };
  const started = () => {
    if (!events) throw new Error("memory adapter is not started");
    return events;
  };

  return {
    name,
    type: "memory",
    capabilities: { ...DEFAULT_CAPABILITIES, ...capabilities },
    sent,
    async start(platformEvents) {
      events = platformEvents;
    },
    async stop() {
      events = undefined;
    },
    async send(to, text, options) {
      return record(to, text, {
        ...(options.replyTo ? { replyTo: options.replyTo } : {}),
        ...(options.thread ? { thread: options.thread } : {}),
        ...(options.buttons ? { buttons: options.buttons } : {}),
      });
    },
    async edit(_to, messageId, text) {
      const message = sent.find((m) => m.messageId === messageId);
      if (!message) throw new Error(`no message ${messageId} to edit`);
      message.text = text;
      message.history.push(text);
    },
    async sendFile(to, file) {
      return record(to, `📎 ${file.name}`, { file });
    },
    receive({ userId, chatId, chatType, ...message }) {
      return started().message({
        id: `in-${instance}-${++nextId}`,
        attachments: [],
        isMention: true,
        ...message,
        channel: { id: chatId ?? `chat-${userId}`, type: chatType ?? "private" },
        sender: { id: userId, isBot: false },
      });
    },
    press(label, by) {
      const message = sent.findLast((m) => m.buttons?.flat().some((b) => b.label === label));
      const button = message?.buttons?.flat().find((b) => b.label === label);
      if (!message || !button) throw new Error(`no button "${label}" was sent`);
      return started().button({
        channel: { id: message.to.chatId ?? message.to.userId, type: "private" },
        sender: { id: by ?? message.to.userId, isBot: false },
        data: button.data,
        messageId: message.messageId,
      });
    },
    textsFor(userId) {
      return sent.filter((m) => m.to.userId === userId && !m.thread).map((m) => m.text);
    },
  };
}
