import type { Logger } from "@phonework/runtime";
import type { BotCommand } from "grammy/types";
import type { PlatformCommand } from "../platform-adapter.ts";

// The command menu as Telegram accepts it: names of 1–32 lowercase letters, digits and underscores,
// descriptions of 1–256 characters, at most 100 commands. setMyCommands refuses the whole list for
// one bad entry, so entries Telegram would refuse are left out (or shortened) instead.

const NAME = /^[a-z0-9_]{1,32}$/;
const MAX_DESCRIPTION = 256;
const MAX_COMMANDS = 100;

export function menuCommands(commands: PlatformCommand[], logger: Logger): BotCommand[] {
  const menu: BotCommand[] = [];
  for (const { command, description } of commands) {
    const text = description.trim();
    if (!NAME.test(command) || !text) {
      logger.debug({ command }, "command left out of the Telegram menu: name or description not accepted");
      continue;
    }
    const shortened = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
    menu.push({ command, description: shortened });
  }
  if (menu.length > MAX_COMMANDS) {
    logger.debug({ count: menu.length }, `Telegram's menu holds ${MAX_COMMANDS} commands; the rest left out`);
  }
  return menu.slice(0, MAX_COMMANDS);
}
