import type { ReactionTypeEmoji } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { bool, chatId, int, json, parseParams } from "../api/params.ts";
import { REACTION_EMOJI } from "../state/reactions.ts";
import type { MethodHandler } from "./method.ts";

// setMessageReaction as a bot may use it: one emoji reaction from Telegram's list (or none, which
// removes the bot's), on a message of the chat. Simplified: custom and paid reactions are refused.

const reactionParams = z.object({
  chat_id: chatId,
  message_id: int,
  reaction: json(z.array(z.looseObject({ type: z.string(), emoji: z.string().optional() }))).optional(),
  is_big: bool.optional(),
});

const setMessageReaction: MethodHandler = (state, raw) => {
  const params = parseParams(reactionParams, raw);
  const chat = state.chats.resolve(params.chat_id);
  if (!state.chats.find(chat.id, params.message_id)) throw badRequest("MESSAGE_ID_INVALID");
  const reaction = params.reaction ?? [];
  if (reaction.length > 1) throw badRequest("REACTIONS_TOO_MANY");
  for (const item of reaction) {
    if (item.type !== "emoji" || !REACTION_EMOJI.has(item.emoji ?? "")) throw badRequest("REACTION_INVALID");
  }
  state.reactions.set(chat.id, params.message_id, reaction as ReactionTypeEmoji[]);
  return true;
};

export const reactionMethods = { setMessageReaction };
