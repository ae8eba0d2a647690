import type { Logger } from "@phonework/runtime";
import type { PlatformCommand } from "../platform-adapter.ts";

// The command menu as Discord's global slash commands (PUT /applications/{id}/commands replaces
// the whole list): names of 1–32 lowercase letters, digits, - and _, descriptions of 1–100
// characters, at most 100 commands. Each takes its arguments as one optional free-text option,
// so `/new` `myproject codex` arrives as the text "/new myproject codex". Discord refuses the whole
// list for one bad entry, so entries it would refuse are left out (or shortened) instead.

const NAME = /^[a-z0-9_-]{1,32}$/;
const MAX_DESCRIPTION = 100;
const MAX_COMMANDS = 100;
const CHAT_INPUT = 1;
const STRING_OPTION = 3;
/** Usable in servers (0) and in the bot's DMs (1); installed to servers (0). */
const CONTEXTS = [0, 1];

export interface SlashCommand {
  name: string;
  description: string;
  type: number;
  options: Array<{ type: number; name: string; description: string; required: boolean }>;
  contexts: number[];
}

export function slashCommands(commands: PlatformCommand[], logger: Logger): SlashCommand[] {
  const list: SlashCommand[] = [];
  for (const { command, description } of commands) {
    const text = description.trim();
    if (!NAME.test(command) || !text) {
      logger.debug(
        { command },
        "command left out of Discord's slash commands: name or description not accepted",
      );
      continue;
    }
    list.push({
      name: command,
      description: text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text,
      type: CHAT_INPUT,
      options: [
        { type: STRING_OPTION, name: "args", description: "What follows the command", required: false },
      ],
      contexts: CONTEXTS,
    });
  }
  if (list.length > MAX_COMMANDS) {
    logger.debug({ count: list.length }, `Discord takes ${MAX_COMMANDS} commands; the rest left out`);
  }
  return list.slice(0, MAX_COMMANDS);
}
