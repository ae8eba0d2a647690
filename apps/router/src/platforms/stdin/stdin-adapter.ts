import { randomUUID } from "node:crypto";
import { basename, join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { writePrivateFile } from "@phonework/runtime";
import { TERMINAL_PLATFORM, TERMINAL_USER } from "../../ids/qualified-id.ts";
import type {
  Capabilities,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
  PlatformSendOptions,
} from "../platform-adapter.ts";
import { AnswerOrder, quote } from "./answer-order.ts";

// Chat on the terminal: each stdin line is a message from one local user; replies,
// progress and notices are printed. Works with piped input: `onEnd` fires at end of input.
// A terminal has no replies to point at, so answers that come out of order are quoted; it cannot
// edit either, so progress arrives as new lines.

export interface TerminalAdapterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Where files sent to the chat are saved, owner-only (they are command output). */
  filesDir: string;
  userId?: string;
  /** Called once stdin is closed (end of piped input, or Ctrl-D). */
  onEnd?: () => void;
}

const CHAT_ID = "terminal";

export const TERMINAL_CAPABILITIES: Capabilities = {
  maxMessageLength: 1_000_000,
  canEdit: false,
  canSendButtons: false,
  canReply: true,
  markdown: "plain",
  threads: "none",
  filesIn: false,
  voiceIn: false,
  imagesIn: false,
  maxFileBytes: 100 * 1024 * 1024,
  maxImageBytes: 100 * 1024 * 1024,
};

export function createTerminalAdapter(options: TerminalAdapterOptions): PlatformAdapter {
  const userId = options.userId ?? TERMINAL_USER.slice(`${TERMINAL_PLATFORM}:`.length);
  let lines: Interface | undefined;
  let nextId = 0;
  // Line ids are unique across runs too: the shared layer drops a message whose id it stored
  // before, and router.db outlives this process (a restart would lose its first lines).
  const run = randomUUID().slice(0, 8);
  const unanswered = new AnswerOrder();

  const print = (text: string) => options.output.write(`${text}\n`);

  return {
    name: TERMINAL_PLATFORM,
    type: TERMINAL_PLATFORM,
    capabilities: TERMINAL_CAPABILITIES,

    async start(events: PlatformEvents) {
      lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
      lines.on("line", (line) => {
        const text = line.trim();
        if (!text) return;
        const messageId = `t-${run}-${++nextId}`;
        unanswered.received(messageId, text);
        void events.message({
          id: messageId,
          channel: { id: CHAT_ID, type: "private" },
          sender: { id: userId, isBot: false },
          text,
          attachments: [],
          isMention: true,
        });
      });
      lines.once("close", () => options.onEnd?.());
    },

    async stop() {
      lines?.removeAllListeners("close");
      lines?.close();
    },

    async send(_to, text: string, send: PlatformSendOptions) {
      const quoted = send.replyTo ? unanswered.answered(send.replyTo) : undefined;
      print(quoted === undefined ? text : `${quote(quoted)}${text}`);
      return { messageId: `out${++nextId}` };
    },

    async edit() {
      // Never asked: the capabilities say a terminal cannot edit.
    },

    async sendFile(_to, file: OutgoingFile) {
      const path = join(options.filesDir, `${Date.now()}-${basename(file.name)}`);
      writePrivateFile(path, file.data);
      print(`📎 ${basename(file.name)} (${file.data.length} bytes) saved to ${path}`);
      return { messageId: `out${++nextId}` };
    },
  };
}
