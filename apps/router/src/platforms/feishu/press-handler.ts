import type { Logger } from "@phonework/runtime";
import type { BoundedMap } from "../../storage/bounded-map.ts";
import type { SeenEvents } from "../../storage/seen-events.ts";
import type { ChannelRef, PlatformEvents } from "../platform-adapter.ts";
import type { ButtonCards } from "./button-cards.ts";
import { type CardCallbackAnswer, readCardCallback } from "./card-action.ts";

// A press of a button on one of our cards, answered the way Feishu shows it: the shared layer's
// short text as a toast to the presser and, when the one the buttons were for pressed, the card in
// place of the pressed one (that row gone, the outcome under the text). A press the shared layer
// could not take gets a toast saying so, never a silent spinner.

/** The shared layer failed before it could word an answer; the presser still sees something. */
const PRESS_FAILED_TEXT = "Something went wrong. Please try again.";
/** A toast shows one short line. */
const MAX_TOAST = 200;

/** Presses answered with a toast of the shared layer's text and, for the card's owner, the card updated. */
export function pressHandler(deps: {
  events: () => PlatformEvents | undefined;
  cards: ButtonCards;
  chatTypes: BoundedMap<string, ChannelRef["type"]>;
  /** Long connection only: a redelivered callback (same event id) is answered with nothing. */
  seen?: SeenEvents;
  logger: Logger;
}) {
  const { cards, chatTypes, logger } = deps;
  const chatType = (chatId: string, messageId: string): ChannelRef["type"] =>
    chatTypes.get(chatId) ?? (cards.privateChat(messageId) ? "private" : "group");
  return async (raw: unknown): Promise<CardCallbackAnswer> => {
    const read = readCardCallback(raw, chatType);
    if (read.kind === "ignore") {
      logger.debug({ reason: read.reason }, "card callback ignored");
      return {};
    }
    const { press } = read;
    if (deps.seen && read.eventId && deps.seen.checkAndRemember([`feishu:e:${read.eventId}`])) {
      logger.info({ eventId: read.eventId }, "redelivered card callback dropped");
      return {};
    }
    const events = deps.events();
    if (!events) return { toast: { type: "warning", content: PRESS_FAILED_TEXT } };
    let text: string;
    try {
      text = await events.button(press);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "Feishu button press not handled");
      return { toast: { type: "error", content: PRESS_FAILED_TEXT } };
    }
    const card = press.messageId
      ? cards.pressed(press.messageId, press.data, press.sender.id, text)
      : undefined;
    return {
      toast: { type: "info", content: text.slice(0, MAX_TOAST) },
      ...(card ? { card: { type: "raw", data: card } } : {}),
    };
  };
}
