import type { Logger } from "@phonework/runtime";
import type { PlatformEvents } from "../platform-adapter.ts";
import type { Channels } from "./channels.ts";
import { describeError } from "./discord-error.ts";
import { type BotIdentity, readDispatch } from "./incoming-event.ts";
import type { Interactions } from "./interactions.ts";

// One gateway dispatch, handed to the shared layer. The gateway has no acknowledgement and no
// redelivery but its replay after a RESUME (which the shared layer's dedupe by message id makes
// harmless); what matters is the order: a slash command is stored before its interaction is
// answered, and a button press is acknowledged at once (Discord allows 3 s), answered after.

export type DispatchHandler = (event: string, data: unknown) => Promise<void>;

export interface EventHandlerDeps {
  events: PlatformEvents;
  bot: BotIdentity;
  channels: Channels;
  interactions: Interactions;
  /** Tells a channel something (best effort): a message that could not be stored. */
  notify(channelId: string, text: string): Promise<void>;
  logger: Logger;
}

/** The shared layer failed before it could word an answer, and the presser must see something. */
const PRESS_FAILED_TEXT = "Something went wrong. Please try again.";
/** A command that could not be stored (the router's disk, most likely): nothing was done with it. */
const NOT_RECEIVED_TEXT = "Your command could not be received. Please send it again.";
/** The same for a message: the gateway will not deliver it again, so the sender is asked to. */
const MESSAGE_NOT_RECEIVED_TEXT = "Your message could not be received. Please send it again.";

export function createEventHandler(deps: EventHandlerDeps): DispatchHandler {
  const { logger } = deps;
  return async (event, data) => {
    const incoming = readDispatch(event, data, deps.bot);
    if (incoming.kind === "ignore") {
      logger.debug({ event, reason: incoming.reason }, "Discord dispatch ignored");
      return;
    }
    if (incoming.kind === "button") {
      const { press } = incoming;
      deps.channels.learn(press.channel.id, press.channel.type);
      await deps.interactions.press(incoming.interaction, () =>
        deps.events.button(press).catch((error: unknown) => {
          logger.warn({ error: describeError(error) }, "Discord button press not handled");
          return PRESS_FAILED_TEXT;
        }),
      );
      return;
    }
    const { message } = incoming;
    deps.channels.learn(message.channel.id, message.channel.type);
    if (incoming.kind === "message") {
      try {
        await deps.events.message(message);
      } catch (error) {
        // Discord will not deliver it again: logged (without its text), and the sender told.
        logger.error({ error: describeError(error), messageId: message.id }, "Discord message not stored");
        await deps.notify(message.channel.id, MESSAGE_NOT_RECEIVED_TEXT);
      }
      return;
    }
    const pending = deps.interactions.expectCommand(
      message.channel.id,
      message.sender.id,
      incoming.interaction,
    );
    try {
      await deps.events.message(message);
    } catch (error) {
      logger.error({ error: describeError(error) }, "Discord slash command not stored");
      await pending.refuse(NOT_RECEIVED_TEXT);
      return;
    }
    try {
      await pending.acknowledge();
    } catch (error) {
      logger.warn({ error: describeError(error) }, "Discord slash command not acknowledged");
    }
  };
}
