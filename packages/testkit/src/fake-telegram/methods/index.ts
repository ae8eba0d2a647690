import { botMethods } from "./bot.ts";
import { fileMethods } from "./files.ts";
import { messageMethods } from "./messages.ts";
import type { MethodHandler } from "./method.ts";
import { pollingMethods } from "./polling.ts";
import { reactionMethods } from "./reactions.ts";
import { webhookMethods } from "./webhook.ts";

// The Bot API methods the fake implements, looked up case-insensitively as the real API does;
// anything else answers 404 Not Found.

const ALL: Record<string, MethodHandler> = {
  ...botMethods,
  ...fileMethods,
  ...messageMethods,
  ...pollingMethods,
  ...reactionMethods,
  ...webhookMethods,
};

const BY_LOWER_NAME = new Map(Object.entries(ALL).map(([name, handler]) => [name.toLowerCase(), handler]));

export const methodHandler = (method: string): MethodHandler | undefined =>
  BY_LOWER_NAME.get(method.toLowerCase());

export { Described, type MethodHandler } from "./method.ts";
