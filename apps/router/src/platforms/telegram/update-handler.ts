import type { Logger } from "@phonework/runtime";
import type { Api } from "grammy";
import type { ButtonPress, PlatformEvents } from "../platform-adapter.ts";
import type { BotIdentity } from "./addressing.ts";
import { readUpdate } from "./incoming-update.ts";
import { describeError } from "./telegram-error.ts";
import { updateIdOf } from "./update-schema.ts";

// One update, handed to the shared layer. The returned promise is the acknowledgement rule for
// polling and webhooks alike: it resolves once the update may be confirmed to Telegram, and rejects
// when it must be delivered again (the message could not be stored).

export type UpdateHandler = (raw: unknown) => Promise<void>;

export interface UpdateHandlerDeps {
  api: Api;
  events: PlatformEvents;
  bot: BotIdentity;
  logger: Logger;
  /** Called with each update_id once its update may be confirmed. */
  onHandled(updateId: number): void;
}

/** The shared layer failed before it could word an answer, and the press must not spin forever. */
const PRESS_FAILED_TEXT = "Something went wrong. Please try again.";
/** answerCallbackQuery takes at most 200 characters. */
const MAX_ANSWER = 200;

export function createUpdateHandler(deps: UpdateHandlerDeps): UpdateHandler {
  const { logger } = deps;
  return async (raw) => {
    const updateId = updateIdOf(raw);
    const update = readUpdate(raw, deps.bot);
    if (update.kind === "ignore")
      logger.debug({ updateId, reason: update.reason }, "Telegram update ignored");
    else if (update.kind === "message") await deps.events.message(update.message);
    else await answerPress(deps, update.press, update.callbackQueryId);
    if (updateId !== undefined) deps.onHandled(updateId);
  };
}

/**
 * A button press is always answered, even when the shared layer failed: Telegram shows a spinner
 * until then. Once answered it cannot be answered again, so a press is never delivered twice.
 */
async function answerPress(deps: UpdateHandlerDeps, press: ButtonPress, callbackQueryId: string) {
  let text: string;
  try {
    text = await deps.events.button(press);
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, "Telegram button press not handled");
    text = PRESS_FAILED_TEXT;
  }
  try {
    await deps.api.answerCallbackQuery(callbackQueryId, text ? { text: text.slice(0, MAX_ANSWER) } : {});
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, "Telegram callback query not answered");
  }
}
