import type { BotCommand } from "grammy/types";

// The bot's command lists, one per scope and language as setMyCommands keeps them.

const keyOf = (scope: unknown, languageCode: string | undefined) =>
  `${JSON.stringify(scope ?? { type: "default" })}|${languageCode ?? ""}`;

export class CommandLists {
  private readonly lists = new Map<string, BotCommand[]>();

  set(commands: BotCommand[], scope?: unknown, languageCode?: string): void {
    this.lists.set(keyOf(scope, languageCode), commands);
  }

  get(scope?: unknown, languageCode?: string): BotCommand[] {
    return [...(this.lists.get(keyOf(scope, languageCode)) ?? [])];
  }

  delete(scope?: unknown, languageCode?: string): void {
    this.lists.delete(keyOf(scope, languageCode));
  }
}
