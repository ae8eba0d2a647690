import { createHash } from "node:crypto";
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { readJsonFile } from "@phonework/runtime";
import { z } from "zod";
import { ChatMessage } from "../model/chat-message.ts";

// Before the workspace, each user's conversation was one JSON file under the host's history/
// directory. It had no chat, so it is taken over by the first chat the user writes in after
// the upgrade (their own, nearly always) and renamed `.bak`: read once, never lost.

const HistoryFile = z.object({ version: z.literal(1), messages: z.array(ChatMessage) });

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** A qualified id (`feishu:ou_x`): the adapter's name, then the platform's id. */
const QUALIFIED = /^([a-z][a-z0-9-]{0,31}):([A-Za-z0-9_-]{1,100})$/;

/** The names the user's file had, newest first (`feishu.ou_x.json`, hashed, then `ou_x.json`). */
function candidateNames(userId: string): string[] {
  const names: string[] = [];
  if (SAFE_ID.test(userId)) names.push(`${userId}.json`);
  const qualified = QUALIFIED.exec(userId);
  if (qualified) names.push(`${qualified[1]}.${qualified[2]}.json`);
  if (!SAFE_ID.test(userId) && !qualified)
    names.push(`u-${createHash("sha256").update(userId).digest("hex").slice(0, 32)}.json`);
  // Written by a router from before adapters were named, which sent bare ids.
  if (qualified) names.push(`${qualified[2]}.json`);
  return names;
}

/**
 * The user's old conversation, if there is one left: its file is renamed `<name>.bak` so it is
 * taken over once. An unreadable file gives an empty conversation and is kept as `.bak` too.
 */
export function takeLegacyHistory(dir: string, userId: string): ChatMessage[] | undefined {
  for (const name of candidateNames(userId)) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    let messages: ChatMessage[] = [];
    try {
      messages = readJsonFile(path, HistoryFile, { version: 1, messages: [] }).messages;
    } catch {
      // Not JSON or not a history: the .bak keeps it for the owner to look at.
    }
    renameSync(path, `${path}.bak`);
    return messages;
  }
  return undefined;
}
