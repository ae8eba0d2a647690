import { basename, join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { writePrivateFile } from "@phonework/runtime";
import { AnswerOrder, quote } from "./answer-order.ts";
import type {
  ChatAdapter,
  ChatAddress,
  MessageListener,
  OutgoingFile,
  SendOptions,
  SentMessage,
} from "./chat-adapter.ts";

// Chat on the terminal: each stdin line is a message from one local user; replies,
// progress and notices are printed. Works with piped input: `onEnd` fires at end of input.
// A terminal has no replies to point at, so answers that come out of order are quoted.

export interface TerminalAdapterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Where files sent to the chat are saved, owner-only (they are command output). */
  filesDir: string;
  userId?: string;
  /** Called once stdin is closed (end of piped input, or Ctrl-D). */
  onEnd?: () => void;
}

export const TERMINAL_PLATFORM = "terminal";
const CHAT_ID = "terminal";

export function createTerminalAdapter(options: TerminalAdapterOptions): ChatAdapter {
  const userId = options.userId ?? "local";
  let lines: Interface | undefined;
  let nextId = 0;
  // Progress is shown as a growing log; a terminal cannot edit, so only new lines are printed.
  const printedLines = new Map<string, number>();
  const unanswered = new AnswerOrder();

  const print = (text: string) => options.output.write(`${text}\n`);

  return {
    platform: TERMINAL_PLATFORM,

    async start(onMessage: MessageListener) {
      lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
      lines.on("line", (line) => {
        const text = line.trim();
        if (!text) return;
        const messageId = `t${++nextId}`;
        unanswered.received(messageId, text);
        onMessage({
          platform: TERMINAL_PLATFORM,
          messageId,
          chatId: CHAT_ID,
          userId,
          chatType: "private",
          text,
        });
      });
      lines.once("close", () => options.onEnd?.());
    },

    async stop() {
      lines?.removeAllListeners("close");
      lines?.close();
    },

    async sendText(_to: ChatAddress, text: string, send?: SendOptions): Promise<SentMessage> {
      const messageId = `out${++nextId}`;
      const quoted = send?.replyTo ? unanswered.answered(send.replyTo) : undefined;
      print(quoted === undefined ? text : `${quote(quoted)}${text}`);
      printedLines.set(messageId, text.split("\n").length);
      return { messageId };
    },

    async editText(_to: ChatAddress, messageId: string, text: string) {
      const all = text.split("\n");
      const printed = printedLines.get(messageId) ?? 0;
      for (const line of all.slice(printed)) print(line);
      printedLines.set(messageId, all.length);
    },

    async sendFile(_to: ChatAddress, file: OutgoingFile): Promise<SentMessage> {
      const path = join(options.filesDir, `${Date.now()}-${basename(file.name)}`);
      writePrivateFile(path, file.data);
      print(`📎 ${basename(file.name)} (${file.data.length} bytes) saved to ${path}`);
      return { messageId: `out${++nextId}` };
    },
  };
}
