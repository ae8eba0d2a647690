import type { MessageEntity } from "grammy/types";

// The entities Telegram's clients attach to what a user types: bot commands ("/start",
// "/help@some_bot") and @username mentions. grammY's bot.command() and mention checks rely on them.

export function userEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(/(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)(?=$|\s)/g)) {
    const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    entities.push({ type: "bot_command", offset, length: match[2]?.length ?? 0 });
  }
  for (const match of text.matchAll(/(^|[^\w/@])(@[A-Za-z][A-Za-z0-9_]{4,31})(?=$|[^\w])/g)) {
    const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    entities.push({ type: "mention", offset, length: match[2]?.length ?? 0 });
  }
  return entities.sort((a, b) => a.offset - b.offset);
}
