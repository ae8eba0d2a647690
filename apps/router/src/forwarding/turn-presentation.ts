import type { ProgressKind } from "@phonework/protocol";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, ChatReply, SendOptions, SentMessage } from "../chat/chat-types.ts";
import type { DetailsMode } from "../users/details-mode.ts";
import { ProgressMessage, type ResultMode } from "./progress-message.ts";
import { TurnDetails } from "./turn-details.ts";

// How one turn is shown in the chat. One main message: the status while the turn runs (the
// progress message), then the answer by the chat's result mode. The turn's details — each tool
// call, its clipped result, the turn's usage — go where the chat's /details says:
// - thread: under the main message (its thread on Slack and Discord, replies to it on Telegram
//   and Feishu), coalesced and bounded (turn-details.ts);
// - inline: as lines in the progress message (a result as its first line);
// - off: nowhere, and the node is not asked for them.
// A turn that showed nothing while it ran (a direct answer) stays one message: its usage alone
// opens no main message. The answer is the last thing the main chat shows: every detail is out
// before it, and where the details are replies (they sit in the main chat, below the main message)
// the answer comes as a message of its own after them, even in `replace` mode.

const INLINE_RESULT_CHARS = 100;

/** A result's first telling line: not the command echoed back ("$ ls"), not a code fence. */
const clipLine = (text: string, max: number) => {
  const lines = text.split("\n").filter((l) => l.trim());
  const line = lines.find((l) => !/^\s*(\$ |```|~~~)/.test(l)) ?? lines[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const longestBackticks = (text: string) =>
  Math.max(0, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));

/** A fenced block no run of backticks in `text` can close. */
const codeBlock = (text: string) => {
  const fence = "`".repeat(Math.max(3, longestBackticks(text) + 1));
  return `${fence}\n${text}\n${fence}`;
};

/** One detail as the thread shows it. */
function threadLine(kind: Exclude<ProgressKind, "status">, text: string): string {
  if (kind === "tool") return `🔧 ${text}`;
  if (kind === "usage") return `📊 ${text}`;
  return codeBlock(text);
}

export interface TurnPresentationOptions {
  /** The chat's mode, already degraded to what its platform can do (see presentationMode). */
  mode: DetailsMode;
  intervalMs: number;
  now: () => number;
}

/** The chat's /details mode on this platform: a thread needs threads or replies, and an editable main message. */
export function presentationMode(
  mode: DetailsMode,
  platform: { threads: "threads" | "replies" | "none"; canEdit: boolean },
): DetailsMode {
  return mode === "thread" && (platform.threads === "none" || !platform.canEdit) ? "inline" : mode;
}

export class TurnPresentation {
  private readonly progress: ProgressMessage;
  private readonly details: TurnDetails | undefined;

  constructor(
    private readonly chat: ChatHub,
    private readonly to: ChatAddress,
    private readonly options: TurnPresentationOptions,
  ) {
    this.progress = new ProgressMessage(chat, to, options.intervalMs, options.now);
    this.details =
      options.mode === "thread"
        ? new TurnDetails(chat, to, () => this.progress.mainMessage(), options.intervalMs, options.now)
        : undefined;
  }

  /** Whether the node should send the turn's details (the forward's `details`). */
  get wantsDetails(): boolean {
    return this.options.mode !== "off";
  }

  /** A progress frame's line; without a kind it is a status (every older host). */
  add(text: string, kind: ProgressKind = "status"): void {
    if (kind === "status") {
      this.progress.add(text);
    } else if (!text.trim() || this.options.mode === "off") {
      // nothing to show
    } else if (kind === "usage" && !this.progress.opened) {
      // A turn that showed nothing while it ran (a direct answer) gets no message just for its usage.
    } else if (this.details) {
      void this.progress.mainMessage(); // opened now: the details wait for it, not for a status line
      this.details.add(threadLine(kind, text));
    } else if (kind === "result") {
      // Inline, a tool call is already its status line; a result shows its first line.
      this.progress.add(clipLine(text, INLINE_RESULT_CHARS) || "(no output)", "↳");
    } else if (kind === "usage") {
      this.progress.add(text, "📊");
    }
  }

  /** Nothing to show (the answer was shown before, as a late answer): stops the status updates. */
  async end(): Promise<void> {
    this.progress.finish();
    if (this.details) await this.details.close();
  }

  /** Sends the remaining details, then shows the answer by the chat's result mode. */
  async conclude(
    reply: ChatReply & { ok: boolean },
    mode: ResultMode,
    options: SendOptions,
  ): Promise<SentMessage | undefined> {
    this.progress.finish();
    if (this.details) await this.details.close(); // no await at all without a thread: one microtask less
    const belowMain =
      this.details?.shown && this.chat.adapter(this.to.platform)?.capabilities.threads === "replies";
    return this.progress.conclude(reply, belowMain ? "send" : mode, options);
  }
}
