import type { Logger } from "@phonework/runtime";
import type { ButtonPress, PlatformEvents } from "../platform-adapter.ts";
import {
  type BotIdentity,
  type Incoming,
  readEventCallback,
  readInteraction,
  readSlashCommand,
} from "./incoming-event.ts";

// One Slack delivery handed to the shared layer, the same for Socket Mode and HTTP. What it returns
// is the acknowledgement rule: `stored` resolves once the delivery may be acknowledged, and rejects
// when it must come again (the message could not be stored). A button press is acknowledged at
// once — Slack wants that within 3 s — and handled after (`later`).

export type DeliveryKind = "events_api" | "slash_commands" | "interactive";

export interface Handled {
  /** Settles when the delivery may be acknowledged (resolves) or must be redelivered (rejects). */
  stored: Promise<void>;
  /** Work to do once acknowledged (a button press's handling). */
  later?: () => Promise<void>;
}

export interface DeliveryDeps {
  events: PlatformEvents;
  bot: BotIdentity;
  /** The app's own slash command (`/pw`). */
  appCommand: string;
  /** Shows a presser the shared layer's short answer. */
  showPressAnswer(press: ButtonPress, text: string): Promise<void>;
  logger: Logger;
}

/** The shared layer failed before it could word an answer; the presser still hears something. */
const PRESS_FAILED_TEXT = "Something went wrong. Please try again.";

export type DeliveryHandler = (kind: DeliveryKind, payload: unknown) => Handled;

function read(kind: DeliveryKind, payload: unknown, deps: DeliveryDeps): Incoming {
  if (kind === "events_api") return readEventCallback(payload, deps.bot);
  if (kind === "slash_commands") return readSlashCommand(payload, deps.appCommand);
  return readInteraction(payload);
}

export function createDeliveryHandler(deps: DeliveryDeps): DeliveryHandler {
  const { logger } = deps;
  return (kind, payload) => {
    const incoming = read(kind, payload, deps);
    if (incoming.kind === "ignore") {
      logger.debug({ kind, reason: incoming.reason }, "Slack delivery ignored");
      return { stored: Promise.resolve() };
    }
    if (incoming.kind === "message") return { stored: deps.events.message(incoming.message) };
    const { press } = incoming;
    return {
      stored: Promise.resolve(),
      later: async () => {
        let text: string;
        try {
          text = await deps.events.button(press);
        } catch (error) {
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            "Slack button press not handled",
          );
          text = PRESS_FAILED_TEXT;
        }
        if (!text) return;
        try {
          await deps.showPressAnswer(press, text);
        } catch (error) {
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            "Slack press answer not shown",
          );
        }
      },
    };
  };
}
