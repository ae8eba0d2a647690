import type { ReactionTypeEmoji } from "grammy/types";

// The reactions the bot set on messages with setMessageReaction, and the emoji Telegram allows in
// one (the Bot API's list; "❤" without the variation selector).

export const REACTION_EMOJI: ReadonlySet<string> = new Set(
  [
    "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌",
    "🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘",
    "💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡",
  ]
    .join(" ")
    .split(" "),
);

export class MessageReactions {
  private readonly byMessage = new Map<string, ReactionTypeEmoji[]>();

  /** Replaces the bot's reactions on the message; an empty list removes them. */
  set(chatId: number, messageId: number, reaction: ReactionTypeEmoji[]): void {
    const key = `${chatId}:${messageId}`;
    if (reaction.length) this.byMessage.set(key, reaction);
    else this.byMessage.delete(key);
  }

  get(chatId: number, messageId: number): ReactionTypeEmoji[] {
    return [...(this.byMessage.get(`${chatId}:${messageId}`) ?? [])];
  }
}
