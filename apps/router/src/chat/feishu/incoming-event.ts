import type { IncomingMessage } from "../chat-adapter.ts";

// An im.message.receive_v1 event, turned into a platform-neutral message — or the reason it
// is not one (a group message not addressed to the bot, a message type the bot cannot read).

export interface ReceiveEvent {
  event_id?: string;
  sender?: { sender_id?: { open_id?: string }; sender_type?: string };
  message?: {
    message_id?: string;
    chat_id?: string;
    chat_type?: string;
    message_type?: string;
    content?: string;
    mentions?: Array<{ key?: string; id?: { open_id?: string }; name?: string }>;
  };
}

export type ParsedEvent =
  | { kind: "message"; message: IncomingMessage }
  | { kind: "ignore"; reason: string }
  | { kind: "unsupported"; messageType: string; reply: { chatId: string; userId: string } };

function postText(content: Record<string, unknown>): string {
  // Post content is either { title, content } or keyed by language: { zh_cn: { title, content } }.
  const body = (Array.isArray(content.content) ? content : Object.values(content)[0]) as
    | { title?: string; content?: Array<Array<{ tag?: string; text?: string; href?: string }>> }
    | undefined;
  const lines = (body?.content ?? []).map((paragraph) =>
    paragraph
      .map((node) =>
        node.tag === "a" && node.href ? `${node.text ?? ""} (${node.href})` : (node.text ?? ""),
      )
      .join(""),
  );
  return [body?.title, ...lines].filter((line) => line?.trim()).join("\n");
}

export function parseReceiveEvent(event: ReceiveEvent, botOpenId: string | undefined): ParsedEvent {
  const message = event.message;
  const userId = event.sender?.sender_id?.open_id;
  if (!message?.message_id || !message.chat_id || !userId)
    return { kind: "ignore", reason: "incomplete event" };
  if (event.sender?.sender_type === "app") return { kind: "ignore", reason: "sent by a bot" };
  const group = message.chat_type !== "p2p";
  const mentions = message.mentions ?? [];
  if (group && !mentions.some((m) => (botOpenId ? m.id?.open_id === botOpenId : true))) {
    return { kind: "ignore", reason: "group message without an @mention of the bot" };
  }
  let content: Record<string, unknown> = {};
  try {
    content = JSON.parse(message.content ?? "{}") as Record<string, unknown>;
  } catch {}
  let text: string;
  if (message.message_type === "text") text = String(content.text ?? "");
  else if (message.message_type === "post") text = postText(content);
  else
    return {
      kind: "unsupported",
      messageType: message.message_type ?? "unknown",
      reply: { chatId: message.chat_id, userId },
    };
  // Drop the @mention placeholders ("@_user_1") so commands like "/nodes" still parse.
  for (const mention of mentions) if (mention.key) text = text.replaceAll(mention.key, "");
  return {
    kind: "message",
    message: {
      platform: "feishu",
      messageId: message.message_id,
      chatId: message.chat_id,
      userId,
      chatType: group ? "group" : "private",
      text: text.trim(),
    },
  };
}

/**
 * The keys under which a delivery is remembered, so a redelivery (same event id) or the same
 * message under a new event id is dropped. The same for the long connection and webhooks.
 */
export function redeliveryKeys(eventId: unknown, messageId: unknown): string[] {
  const keys: string[] = [];
  if (typeof eventId === "string" && eventId) keys.push(`feishu:e:${eventId}`);
  if (typeof messageId === "string" && messageId) keys.push(`feishu:m:${messageId}`);
  return keys;
}

/** Remembered so a user not in ALLOWED_USERS is told once per TTL, not on every message. */
export const refusedUserKey = (userId: string): string => `feishu:u:${userId}`;
