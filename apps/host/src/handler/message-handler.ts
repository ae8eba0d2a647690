import type { ForwardFrame } from "@phonework/protocol";

// What answers a forwarded chat message on this host (the assistant, or a placeholder).

export interface RequestContext {
  /** Aborted when the router cancels the request or the host shuts down. */
  signal: AbortSignal;
  /** Sends a short status line to the user's chat while the request runs. */
  progress(text: string): void;
}

export interface MessageHandler {
  handle(request: ForwardFrame, ctx: RequestContext): Promise<string>;
}
