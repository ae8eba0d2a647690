import type { MessageHandler } from "./message-handler.ts";

/** Used until an assistant is configured: every message gets a clear answer instead of silence. */
export function createNoAssistantHandler(nodeId: string): MessageHandler {
  return {
    async handle() {
      return `Node "${nodeId}" is connected, but no assistant is configured on it yet, so it cannot answer messages.`;
    },
  };
}
