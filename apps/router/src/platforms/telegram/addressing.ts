import type { TelegramEntity } from "./update-schema.ts";

// Whether a group message is addressed to the bot, and the text as the shared layer reads it:
// `@bot /status` and `/status@bot` both become `/status`. Telegram's entity offsets count UTF-16
// code units, as JavaScript strings do, so they index the text directly.

export interface BotIdentity {
  id: number;
  /** Without the "@". */
  username: string;
}

/** A message's text or caption, with the entities that belong to it. */
export interface EntityText {
  text: string;
  entities: TelegramEntity[];
}

const covered = (body: EntityText, entity: TelegramEntity) =>
  body.text.slice(entity.offset, entity.offset + entity.length);

// Usernames are case-insensitive: "@PhoneWork_Bot" mentions @phonework_bot.
const isBotMention = (body: EntityText, entity: TelegramEntity, bot: BotIdentity) =>
  entity.type === "mention" && covered(body, entity).toLowerCase() === `@${bot.username.toLowerCase()}`;

const isBotCommand = (body: EntityText, entity: TelegramEntity, bot: BotIdentity) =>
  entity.type === "bot_command" &&
  covered(body, entity).toLowerCase().endsWith(`@${bot.username.toLowerCase()}`);

/** An @mention of the bot, a `/cmd@bot` command, or a mention of the bot without a username. */
export function mentionsBot(body: EntityText, bot: BotIdentity): boolean {
  return body.entities.some(
    (entity) =>
      isBotMention(body, entity, bot) ||
      isBotCommand(body, entity, bot) ||
      (entity.type === "text_mention" && entity.user?.id === bot.id),
  );
}

/** The text without a leading @mention of the bot, and without "@bot" in commands addressed to it. */
export function withoutBotName(body: EntityText, bot: BotIdentity): string {
  let text = body.text;
  let leadingMention = false;
  // From the last entity to the first, so cutting one leaves the offsets before it intact; an
  // entity reaching into a part already cut (overlapping, repeated: never from Telegram) is skipped.
  let untouchedBelow = body.text.length;
  const entities = [...body.entities].sort((a, b) => b.offset - a.offset);
  for (const entity of entities) {
    const end = entity.offset + entity.length;
    if (end > untouchedBelow) continue;
    if (isBotCommand(body, entity, bot)) {
      text = text.slice(0, end - bot.username.length - 1) + text.slice(end);
    } else if (isBotMention(body, entity, bot) && body.text.slice(0, entity.offset).trim() === "") {
      text = text.slice(end);
      leadingMention = true;
    } else continue;
    untouchedBelow = entity.offset;
  }
  return leadingMention ? text.trimStart() : text;
}
