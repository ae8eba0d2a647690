import type { ForwardFrame } from "@phonework/protocol";
import type { ReplyValue } from "./reply.ts";
import type { DetailSink } from "./turn-detail.ts";

// What answers a forwarded chat message on this host (the assistant, or a placeholder).

/** A file that came with the message, as saved in the chat's attachments/. */
export interface ReceivedFile {
  /** Absolute path of the saved file. */
  path: string;
  /** The name it was saved under. */
  name: string;
  /** The type the chat platform gave, if any (a claim: the bytes decide). */
  mimeType?: string;
}

export interface RequestContext {
  /** Aborted when the router cancels the request or the host shuts down. */
  signal: AbortSignal;
  /** Sends a short status line to the user's chat while the request runs. */
  progress(text: string): void;
  /** The turn's details (tool calls, results, usage); absent when the chat does not show them. */
  detail?: DetailSink;
  /**
   * Tells the user's message line that this request now waits in an ordered queue of its own (a
   * coding session's), so the user's next message for that queue may follow it there at once.
   */
  queuedIn?(queue: string): void;
  /**
   * The files that came with the message (the text names them too) and the words the user wrote
   * with them, before the file lines were added; absent when the message brought no file.
   */
  received?: { caption: string; files: ReceivedFile[] };
}

export interface MessageHandler {
  handle(request: ForwardFrame, ctx: RequestContext): Promise<ReplyValue>;
}
