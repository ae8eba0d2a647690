import { createHash } from "node:crypto";
import { join } from "node:path";
import { readJsonFile, writeJsonFileAtomic } from "@phonework/runtime";
import { z } from "zod";
import { ChatMessage } from "./chat-message.ts";
import { messageTokens } from "./token-estimate.ts";

// Per-user conversation history on this node, persisted under DATA_DIR so a restarted host
// continues the same conversation. Trimmed from the oldest whole turn (a user message and
// everything after it up to the next one), so tool calls never lose their results.

const HistoryFile = z.object({ version: z.literal(1), messages: z.array(ChatMessage) });

export interface HistoryStore {
  load(userId: string): ChatMessage[];
  save(userId: string, messages: ChatMessage[]): void;
  append(userId: string, messages: ChatMessage[]): void;
}

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

/** File name for a user id: readable when safe, hashed when not (ids come from chat platforms). */
function fileNameFor(userId: string): string {
  if (/^[A-Za-z0-9_-]{1,100}$/.test(userId)) return `${userId}.json`;
  return `u-${createHash("sha256").update(userId).digest("hex").slice(0, 32)}.json`;
}

export function createFileHistoryStore(dir: string, maxTokens: number): HistoryStore {
  const cache = new Map<string, ChatMessage[]>();
  const pathOf = (userId: string) => join(dir, fileNameFor(userId));
  const store: HistoryStore = {
    load(userId) {
      let messages = cache.get(userId);
      if (!messages) {
        messages = readJsonFile(pathOf(userId), HistoryFile, { version: 1, messages: [] }).messages;
        cache.set(userId, messages);
      }
      return [...messages];
    },
    save(userId, messages) {
      const trimmed = trimToBudget(messages, maxTokens);
      cache.set(userId, trimmed);
      writeJsonFileAtomic(pathOf(userId), { version: 1, messages: trimmed });
    },
    append(userId, messages) {
      store.save(userId, [...store.load(userId), ...messages]);
    },
  };
  return store;
}
