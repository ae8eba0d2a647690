import type {
  ChatAdapter,
  ChatAddress,
  IncomingMessage,
  MessageListener,
  OutgoingFile,
} from "./chat-adapter.ts";

// An in-process chat platform: messages are injected with `receive` and everything the
// router sends is kept in `sent`. For embedding PhoneWork and for tests that need many users.

export interface RecordedMessage {
  messageId: string;
  to: ChatAddress;
  text: string;
  /** Every text this message had, in order (progress edits). */
  history: string[];
  file?: OutgoingFile;
  /** The incoming message it answers, when it is an answer. */
  replyTo?: string;
}

export interface MemoryChatAdapter extends ChatAdapter {
  readonly sent: RecordedMessage[];
  receive(message: Partial<IncomingMessage> & { userId: string; text: string }): void;
  /** Texts sent to one user, in order. */
  textsFor(userId: string): string[];
}

export function createMemoryChatAdapter(platform = "memory"): MemoryChatAdapter {
  const sent: RecordedMessage[] = [];
  let listener: MessageListener | undefined;
  let nextId = 0;

  const record = (to: ChatAddress, text: string, extra: Pick<RecordedMessage, "file" | "replyTo">) => {
    const messageId = `m${++nextId}`;
    sent.push({ messageId, to, text, history: [text], ...extra });
    return { messageId };
  };

  return {
    platform,
    sent,
    async start(onMessage) {
      listener = onMessage;
    },
    async stop() {
      listener = undefined;
    },
    async sendText(to, text, options) {
      return record(to, text, options?.replyTo ? { replyTo: options.replyTo } : {});
    },
    async editText(_to, messageId, text) {
      const message = sent.find((m) => m.messageId === messageId);
      if (!message) throw new Error(`no message ${messageId} to edit`);
      message.text = text;
      message.history.push(text);
    },
    async sendFile(to, file) {
      return record(to, `📎 ${file.name}`, { file });
    },
    receive(message) {
      if (!listener) throw new Error("memory adapter is not started");
      listener({
        platform,
        messageId: `in${++nextId}`,
        chatId: `chat-${message.userId}`,
        chatType: "private",
        ...message,
      });
    },
    textsFor(userId) {
      return sent.filter((m) => m.to.userId === userId).map((m) => m.text);
    },
  };
}
