import { z } from "zod";
import type { ButtonPress } from "../platform-adapter.ts";

// A card.action.trigger callback (a button on one of our cards pressed), read into a ButtonPress —
// or the reason it is not one. The same shape arrives over the long connection (flattened by the
// SDK: the header's fields beside the event's) and in a webhook (header and event apart).

/** OutgoingButton data is at most 64 bytes; anything longer was not put there by us. */
const MAX_DATA_BYTES = 64;

const callbackSchema = z.looseObject({
  event_id: z.string().optional(),
  operator: z.looseObject({ open_id: z.string().min(1) }),
  action: z.looseObject({
    tag: z.string().optional(),
    value: z.unknown(),
  }),
  context: z.looseObject({
    open_message_id: z.string().min(1),
    open_chat_id: z.string().min(1),
  }),
});

export type CardCallback =
  | { kind: "press"; press: ButtonPress; eventId?: string }
  | { kind: "ignore"; reason: string };

/** The opaque data a button carried: `{ d }` as card.ts puts it (or a string value, as 1.0 cards had). */
function dataOf(value: unknown): string | undefined {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const data = (parsed as { d?: unknown } | null)?.d;
  return typeof data === "string" && data.length > 0 ? data : undefined;
}

/**
 * `flat` is the SDK's view (header fields at the top level) or a webhook's `{ header, event }`.
 * The chat's type is not in a callback: `chatType` answers it from what the adapter has seen.
 */
export function readCardCallback(
  raw: unknown,
  chatType: (chatId: string, messageId: string) => "private" | "group",
): CardCallback {
  const envelope = raw as { header?: { event_id?: unknown }; event?: unknown } | null;
  const body = envelope && typeof envelope === "object" && "event" in envelope ? envelope.event : raw;
  const parsed = callbackSchema.safeParse(body);
  if (!parsed.success) return { kind: "ignore", reason: "malformed card callback" };
  const callback = parsed.data;
  if (callback.action.tag !== undefined && callback.action.tag !== "button")
    return { kind: "ignore", reason: `card callback from a ${callback.action.tag}` };
  const data = dataOf(callback.action.value);
  if (!data) return { kind: "ignore", reason: "card callback without button data" };
  if (Buffer.byteLength(data) > MAX_DATA_BYTES)
    return { kind: "ignore", reason: "button data over 64 bytes" };
  const eventId =
    typeof envelope?.header?.event_id === "string" ? envelope.header.event_id : callback.event_id;
  const chatId = callback.context.open_chat_id;
  const messageId = callback.context.open_message_id;
  return {
    kind: "press",
    press: {
      channel: { id: chatId, type: chatType(chatId, messageId) },
      sender: { id: callback.operator.open_id, isBot: false },
      data,
      messageId,
    },
    ...(eventId ? { eventId } : {}),
  };
}

/** What Feishu takes back from a callback: a toast, and the card to show in place of the pressed one. */
export interface CardCallbackAnswer {
  toast?: { type: "info" | "success" | "error" | "warning"; content: string };
  card?: { type: "raw"; data: Record<string, unknown> };
}
