import { createHash } from "node:crypto";
import { existsSync, renameSync } from "node:fs";
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

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** A qualified id (`feishu:ou_x`): the adapter's name, then the platform's id. */
const QUALIFIED = /^([a-z][a-z0-9-]{0,31}):([A-Za-z0-9_-]{1,100})$/;

/**
 * File name for a user id: readable when safe (`feishu.ou_x.json` for `feishu:ou_x` — a dot is in
 * neither part, so names cannot collide), hashed when not (ids come from chat platforms).
 */
function fileNameFor(userId: string): string {
  if (SAFE_ID.test(userId)) return `${userId}.json`;
  const qualified = QUALIFIED.exec(userId);
  if (qualified) return `${qualified[1]}.${qualified[2]}.json`;
  return `u-${createHash("sha256").update(userId).digest("hex").slice(0, 32)}.json`;
}

/** Where a router from before adapters were named had this user's history (`ou_x.json`). */
function legacyFileFor(userId: string): string | undefined {
  const qualified = QUALIFIED.exec(userId);
  return qualified ? `${qualified[2]}.json` : undefined;
}

export function createFileHistoryStore(dir: string, maxTokens: number): HistoryStore {
  const cache = new Map<string, ChatMessage[]>();
  const pathOf = (userId: string) => join(dir, fileNameFor(userId));
  const store: HistoryStore = {
    load(userId) {
      let messages = cache.get(userId);
      if (!messages) {
        // Taken over once (renamed), so no other adapter's user with the same bare id finds it.
        const legacy = legacyFileFor(userId);
        if (legacy && !existsSync(pathOf(userId)) && existsSync(join(dir, legacy)))
          renameSync(join(dir, legacy), pathOf(userId));
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
