import type { ChatMessage } from "./chat-message.ts";
import { messageTokens } from "./token-estimate.ts";

/**
 * The newest part of a conversation that fits in `maxTokens`, cut at a whole turn (a user message
 * and everything after it up to the next one), so a tool call never loses its result. The latest
 * turn is always kept, even when it alone is over the budget.
 */
export function trimToBudget(messages: ChatMessage[], maxTokens: number): ChatMessage[] {
  let total = messages.reduce((sum, m) => sum + messageTokens(m), 0);
  let start = 0;
  while (total > maxTokens && start < messages.length) {
    // Drop one whole turn: up to (not including) the next user message.
    let end = start + 1;
    while (end < messages.length && messages[end]?.role !== "user") end++;
    if (end >= messages.length) break; // never drop the latest turn
    for (let i = start; i < end; i++) total -= messageTokens(messages[i] as ChatMessage);
    start = end;
  }
  return messages.slice(start);
}
